// biome-ignore lint/style/noRestrictedImports: execa pipes a file it is given through this process, and keeps the child; a daemon started for good gets the log's descriptor itself, and is let go (see spawnDaemon).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ollieDirs } from "@ollie/client";

/** How long an olliesrv that ollie starts waits, with no client and no live agent, before it stops. */
export const DEFAULT_IDLE_EXIT = "15m";

/** How long a start may take before ollie gives up on it (a first start makes keys, restores sessions). */
const START_TIMEOUT_MS = 60_000;

/** Lines of the log a failed start shows. */
const LOG_TAIL_LINES = 12;

const OLLIESRV = fileURLToPath(new URL("../bin/olliesrv.js", import.meta.url));

/** Where the olliesrv that ollie starts logs: `$XDG_STATE_HOME/ollie/olliesrv.log`. */
export function daemonLogFile(env: NodeJS.ProcessEnv): string {
  return join(ollieDirs(env).state, "olliesrv.log");
}

/** The olliesrv ollie started did not come up: how it ended, and the end of its log. */
export class DaemonStartError extends Error {
  override readonly name = "DaemonStartError";
  constructor(
    readonly logFile: string,
    why: string,
    readonly logTail: string,
  ) {
    super(
      `olliesrv could not be started: ${why}; its log, ${logFile}, ${logTail ? `ends:\n${logTail}` : "is empty"}`,
    );
  }
}

export interface DaemonStart {
  /** The Unix socket it serves on: ollie's default address. */
  socketPath: string;
  /** Its environment: ollie's own. */
  env: NodeJS.ProcessEnv;
  /** `--idle-exit`'s value: a duration, or 0 to keep it running. */
  idleExit: string;
}

/**
 * Starts olliesrv (which starts its toolsrv) in the background, as tmux starts its server: in a session of
 * its own (no terminal, so no Ctrl-C or hangup of this one reaches it), standard input from /dev/null,
 * standard output and error appended to its log file (made 0600, its directory 0700), in `/` so that it
 * holds no directory of the user's. Resolves once it serves — it says so on a pipe (`--ready-fd 3`), once
 * its sessions are restored — or once the olliesrv another command started at the same moment serves: of
 * two, one takes the address's lock, and the other says ready when that one serves (see daemon.ts). Rejects
 * with DaemonStartError, naming the log and quoting its end, when it ends before it serves or takes longer
 * than a minute.
 */
export async function startDaemon({ socketPath, env, idleExit }: DaemonStart): Promise<void> {
  const logFile = daemonLogFile(env);
  mkdirSync(ollieDirs(env).state, { recursive: true, mode: 0o700 });
  // Opened here, private, not by olliesrv: what it prints before its logging is set up (a crash) lands there.
  const log = openSync(logFile, "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawnDaemon(socketPath, env, idleExit, log);
  } finally {
    closeSync(log);
  }
  const ready = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void };
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => {});
  // A failure to start at all is an exit too (its error ends the wait below).
  const failed = once(child, "error").then(([error]) => error as Error);
  const timeout = AbortSignal.timeout(START_TIMEOUT_MS);
  const outcome = await Promise.race([
    firstLine(ready).then(async (line) => (line ? ({ ready: true } as const) : { exit: await exited })),
    failed.then((error) => ({ error })),
    new Promise<{ timedOut: true }>((resolve) =>
      timeout.addEventListener("abort", () => resolve({ timedOut: true })),
    ),
  ]);
  // It runs on without this process: nothing of it keeps ollie waiting from now on.
  ready.destroy();
  child.unref();
  if ("ready" in outcome) return;
  if ("timedOut" in outcome)
    throw await startError(logFile, `pid ${child.pid} did not serve within ${START_TIMEOUT_MS / 1000} s`);
  if ("error" in outcome) throw await startError(logFile, outcome.error.message);
  const [code, signal] = outcome.exit;
  throw await startError(logFile, signal ? `it was killed by ${signal}` : `it exited with status ${code}`);
}

/**
 * olliesrv, detached: a session and process group of its own (setsid), standard input /dev/null, standard
 * output and error the log's descriptor, and descriptor 3 a pipe it says ready on.
 */
function spawnDaemon(
  socketPath: string,
  env: NodeJS.ProcessEnv,
  idleExit: string,
  log: number,
): ChildProcess {
  return spawn(
    process.execPath,
    [OLLIESRV, "-a", `unix!${socketPath}`, "--idle-exit", idleExit, "--ready-fd", "3"],
    { env, cwd: "/", detached: true, stdio: ["ignore", log, log, "pipe"] },
  );
}

/** The first line of `stream`, or undefined when it ends without one. */
function firstLine(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
    stream.once("end", () => resolve(undefined));
    stream.once("close", () => resolve(undefined));
    stream.once("error", () => resolve(undefined));
  });
}

async function startError(logFile: string, why: string): Promise<DaemonStartError> {
  return new DaemonStartError(logFile, why, await tail(logFile));
}

/** The last lines of the log, indented: what olliesrv said before it ended. */
async function tail(file: string): Promise<string> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return "";
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 16 * 1024);
    const { buffer } = await handle.read({ buffer: Buffer.alloc(length), position: size - length });
    const lines = buffer.toString("utf8").split("\n").filter(Boolean);
    return lines
      .slice(-LOG_TAIL_LINES)
      .map((line) => `  ${line}`)
      .join("\n");
  } finally {
    await handle.close();
  }
}
