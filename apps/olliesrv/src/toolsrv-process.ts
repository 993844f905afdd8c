import { createRequire } from "node:module";
import { execa } from "execa";

/** A toolsrv this daemon started, and how to stop it. */
export interface ToolsrvProcess {
  address: string;
  stop(): Promise<void>;
}

/**
 * Starts the toolsrv that ships with Ollie at `address` and waits until it serves; its log lines are passed
 * on. It gets the daemon's environment (so it finds the same configuration) plus `extraEnv`, and `extraArgs`. Its stdin is a
 * pipe from this process: if the daemon dies, even by SIGKILL, toolsrv sees the end and stops.
 */
export function startToolsrv(
  address: string,
  extraEnv: Record<string, string>,
  extraArgs: readonly string[],
  log: (line: string) => void,
): Promise<ToolsrvProcess> {
  const bin = createRequire(import.meta.url).resolve("toolsrv/bin/toolsrv.js");
  const child = execa(process.execPath, [bin, "-a", address, "--exit-with-stdin", ...extraArgs], {
    env: { ...process.env, ...extraEnv },
    extendEnv: false,
    stdin: "pipe",
    stdout: "ignore",
    buffer: false,
    reject: false,
  });
  log(`started toolsrv pid ${child.pid}`);
  return new Promise((resolve, reject) => {
    let pending = "";
    let ready = false;
    child.stderr?.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        log(line);
        if (!ready && line.includes("serving")) {
          ready = true;
          resolve({
            address,
            stop: async () => {
              child.kill("SIGTERM");
              await child;
            },
          });
        }
      }
    });
    void child.then((result) => {
      if (!ready)
        reject(new Error(`toolsrv exited (status ${result.exitCode}) before it served; see the lines above`));
    });
  });
}
