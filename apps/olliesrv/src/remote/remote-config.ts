import { join } from "node:path";
import { readConfigFile } from "@ollie/config-file";
import { z } from "zod";
import type { RemoteHostSettings } from "./remote-toolsrv.js";

const hostSchema = z.strictObject({
  /** ssh options put before the destination, each one word: `["-o", "ServerAliveInterval=15"]`. */
  ssh_options: z.array(z.string().min(1)).optional(),
  /** Node.js on the host. */
  node: z.string().min(1).optional(),
  /** Where bundles and sockets go on the host (relative: to the remote home). */
  data_dir: z.string().min(1).optional(),
});

const remoteConfigSchema = z.strictObject({
  /** By destination as written in `remote=` (`[user@]host`); `*` is every host's defaults. */
  hosts: z.record(z.string(), hostSchema).default({}),
});

/** How olliesrv reaches one host: ssh options, and how toolsrv runs there. */
export interface HostSettings extends RemoteHostSettings {
  sshOptions: string[];
}

/**
 * The settings for `destination` from `remote.yaml` in the configuration directory: the `*` entry, then the
 * host's own on top. No file: ssh as the user has it configured, `node` from the remote PATH.
 */
export async function hostSettings(configDir: string, destination: string): Promise<HostSettings> {
  const config = await readConfigFile(remoteConfigSchema, join(configDir, "remote.yaml"));
  const merged = { ...config?.hosts["*"], ...config?.hosts[destination] };
  return {
    sshOptions: merged.ssh_options ?? [],
    ...(merged.node !== undefined && { node: merged.node }),
    ...(merged.data_dir !== undefined && { dataDir: merged.data_dir }),
  };
}
