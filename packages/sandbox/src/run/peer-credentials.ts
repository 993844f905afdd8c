import type { Socket } from "node:net";
import { execa } from "execa";
import { type EnsureOptions, ensureLauncher } from "../launcher/ensure-launcher.js";

/** Who connected to a Unix socket, as the kernel recorded it at the connect. */
export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

/**
 * The process, user and group at the other end of a connected Unix socket (SO_PEERCRED), which Node cannot
 * ask: the launcher is handed the socket as a descriptor and asks the kernel. The pid is as this process's
 * PID namespace sees it. Costs a process start, so it suits sockets that are connected to rarely.
 */
export async function peerCredentials(socket: Socket, options: EnsureOptions = {}): Promise<PeerCredentials> {
  const launcher = await ensureLauncher(options);
  const asked = await execa(launcher.path, ["--peer-cred", "3"], {
    stdio: ["ignore", "pipe", "pipe", socket],
    reject: false,
    extendEnv: false,
  });
  const found = /^(\d+) (\d+) (\d+)$/.exec(asked.stdout);
  if (asked.exitCode !== 0 || !found)
    throw new Error(
      `cannot tell who is at the other end of the socket: ${asked.stderr.trim() || asked.message}`,
    );
  return { pid: Number(found[1]), uid: Number(found[2]), gid: Number(found[3]) };
}
