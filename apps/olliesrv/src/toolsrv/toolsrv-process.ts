import { createRequire } from "node:module";
import { type Logger, levelsOnly } from "@ollie/log";
import { execa } from "execa";
import { eachLine } from "../each-line.js";

/** How a toolsrv process ended: its exit status, or the signal that ended it. */
export interface ToolsrvExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

/** `killed by SIGKILL`, `exit status 1`: an exit as the log, `stats` and a cut-off call say it. */
export function describeExit(exit: ToolsrvExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit status ${exit.exitCode ?? "unknown"}`;
}

/** A toolsrv this daemon started: where it serves, its process, its end, and how to stop it. */
export interface ToolsrvProcess {
  address: string;
  pid: number;
  /** Resolves when the process has ended, whatever ended it (stop() included). */
  exited: Promise<ToolsrvExit>;
  stop(): Promise<void>;
}

/** toolsrv ended before it served: its log lines, relayed above, say why. */
export class ToolsrvStartError extends Error {
  override readonly name = "ToolsrvStartError";
  constructor(readonly exit: ToolsrvExit) {
    super(`toolsrv exited (${describeExit(exit)}) before it served; see the lines above`);
  }
}

/**
 * Starts the toolsrv that ships with Ollie at `address` and waits until it serves: it prints its address on
 * stdout then (`--print-address`), whatever its log shows; rejects with ToolsrvStartError when it ends first.
 * Its log lines are relayed into `log`'s stream. It gets the daemon's environment (so it finds the same
 * configuration, $OLLIE_LOG's levels included, but not its file: toolsrv's lines reach the file through the
 * relay) plus `extraEnv`, and `extraArgs`. Its stdin is a pipe from this process: if the daemon dies, even
 * by SIGKILL, toolsrv sees the end and stops. It runs in a session (and process group) of its own, so that
 * a Ctrl-C at olliesrv's terminal reaches olliesrv alone, which stops toolsrv last, once nothing uses it
 * (see Ollie.close): toolsrv ending on its own meanwhile would look like a crash to what follows it.
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
      detached: true,
    },
  );
  log.debug(`started toolsrv pid ${child.pid}`);
  eachLine(child.stderr, log.relay);
  const exited = child.then((result): ToolsrvExit => ({ exitCode: result.exitCode, signal: result.signal }));
  return new Promise((resolve, reject) => {
    let ready = false;
    eachLine(child.stdout, () => {
      if (ready) return;
      ready = true;
      resolve({
        address,
        pid: child.pid!,
        exited,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    void exited.then((exit) => {
      if (!ready) reject(new ToolsrvStartError(exit));
    });
  });
}
