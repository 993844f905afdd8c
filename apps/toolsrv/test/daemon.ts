import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Authenticator, NinepClient } from "@ollie/ninep";
import { ToolsrvConn, type ToolsrvConnOptions } from "@ollie/toolsrv/client";
import { execa, type ResultPromise } from "execa";

export const BIN = fileURLToPath(new URL("../bin/toolsrv.js", import.meta.url));
export const BUNDLED = fileURLToPath(new URL("../tools", import.meta.url));

/** How long a test waits for something to happen before it fails: generous, since machines are busy. */
export const WAIT = { timeout: 10_000, interval: 20 };

/** A scratch area: a tools directory, a working directory, a config home. */
export function scratch(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dirs = { root, tools: join(root, "tools"), work: join(root, "work"), config: join(root, "config") };
  for (const d of [dirs.tools, dirs.work, join(dirs.config, "ollie")]) mkdirSync(d, { recursive: true });
  return {
    ...dirs,
    /** Writes an executable tool script. */
    tool(name: string, body: string) {
      const file = join(dirs.tools, name);
      writeFileSync(file, body);
      chmodSync(file, 0o755);
      return file;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A shell tool with a header. */
export const shTool = (name: string, header: string, body: string) =>
  `#!/bin/sh\n# ollie:tool ${name}\n# ollie:description ${name} for tests.\n${header}${body}\n`;

export interface Daemon {
  address: string;
  child: ResultPromise;
  stderr: () => string;
  conn(uname: string, options?: Partial<ToolsrvConnOptions>): Promise<ToolsrvConn>;
  /** A raw 9P session as `uname`, proven with `authenticator` if given. */
  attach(
    uname: string,
    authenticator?: Authenticator,
  ): Promise<{ fsys: Awaited<ReturnType<NinepClient["attach"]>>; close(): void }>;
  stop(): Promise<void>;
}

/**
 * A daemon's home directories: its own, except the cache, where the sandbox keeps its launcher. That is the
 * user's, as for any program: one under /tmp would be refused, since the default policy lets tools write
 * {TMPDIR}.
 */
export const homes = (s: { root: string; config: string }) => ({
  HOME: s.root,
  XDG_CONFIG_HOME: s.config,
  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
});

/**
 * Starts the real toolsrv command on a Unix socket, with `env` added to its environment, and waits until it
 * serves.
 */
export async function startDaemon(
  s: ReturnType<typeof scratch>,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Daemon> {
  const address = `unix!${join(s.root, "toolsrv.sock")}`;
  const child = execa(
    process.execPath,
    [
      BIN,
      "-a",
      address,
      "--tools-path",
      `${s.tools}:${BUNDLED}`,
      "--owner",
      "glenda",
      "--print-address",
      ...args,
    ],
    {
      env: {
        ...homes(s),
        PATH: process.env.PATH,
        OLLIE_MEMORY_PATH: join(s.root, "memory"),
        ...env,
      },
      extendEnv: false,
      reject: false,
    },
  );
  let said = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    said += chunk.toString();
  });
  // Ready when it prints its address on stdout (--print-address), whatever its log level lets it say.
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.then(() => reject(new Error(`toolsrv exited: ${said}`)));
  });
  return {
    address,
    child,
    stderr: () => said,
    conn: (uname, options = {}) => ToolsrvConn.dial({ address, uname, cwd: s.work, ...options }),
    attach: async (uname, authenticator) => {
      const client = await NinepClient.dial(address);
      try {
        return {
          fsys: await client.attach({ uname, ...(authenticator && { authenticator }) }),
          close: () => client.close(),
        };
      } catch (error) {
        client.close();
        throw error;
      }
    },
    stop: async () => {
      child.kill("SIGTERM");
      await child;
    },
  };
}
