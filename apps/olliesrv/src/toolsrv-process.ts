import { createRequire } from "node:module";
import { type Logger, levelsOnly } from "@ollie/log";
import { execa } from "execa";
import { eachLine } from "./each-line.js";

/** A toolsrv this daemon started, and how to stop it. */
export interface ToolsrvProcess {
  address: string;
  stop(): Promise<void>;
}

/**
 * Starts the toolsrv that ships with Ollie at `address` and waits until it serves: it prints its address on
 * stdout then (`--print-address`), whatever its log shows. Its log lines are relayed into `log`'s stream.
 * It gets the daemon's environment (so it finds the same configuration, $OLLIE_LOG's levels included, but
 * not its file: toolsrv's lines reach the file through the relay) plus `extraEnv`, and `extraArgs`. Its stdin is a pipe from this process: if the daemon dies, even by SIGKILL,
 * toolsrv sees the end and stops.
 */
export function startToolsrv(
  address: string,
  extraEnv: Record<string, string>,
  extraArgs: readonly string[],
  log: Logger,
): Promise<ToolsrvProcess> {
  const bin = createRequire(import.meta.url).resolve("toolsrv/bin/toolsrv.js");
  const child = execa(
    process.execPath,
    [bin, "-a", address, "--exit-with-stdin", "--print-address", ...extraArgs],
    {
      env: { ...process.env, OLLIE_LOG: levelsOnly(process.env.OLLIE_LOG) ?? "", ...extraEnv },
      extendEnv: false,
      stdin: "pipe",
      buffer: false,
      reject: false,
    },
  );
  log.info(`started toolsrv pid ${child.pid}`);
  eachLine(child.stderr, log.relay);
  return new Promise((resolve, reject) => {
    let ready = false;
    eachLine(child.stdout, () => {
      if (ready) return;
      ready = true;
      resolve({
        address,
        stop: async () => {
          child.kill("SIGTERM");
          await child;
        },
      });
    });
    void child.then((result) => {
      if (!ready)
        reject(new Error(`toolsrv exited (status ${result.exitCode}) before it served; see the lines above`));
    });
  });
}
