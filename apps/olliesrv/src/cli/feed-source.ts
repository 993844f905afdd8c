import { constants } from "node:os";
import { execa, type Result } from "execa";
import { splitLines } from "../each-line.js";
import type { FeedSource } from "./feed-args.js";

/** A running source of lines: a command, a followed file, or standard input. */
export interface RunningSource {
  /** What the prompts call it: the command line, the file, `standard input`. */
  label: string;
  /** Settles once the source has ended by itself and every line of it was given: its status and why. */
  done: Promise<{ status: number; how: string }>;
  /** Ends it now (the command's whole process group); resolves once it has ended. */
  stop(): Promise<void>;
}

/** How long a command has to end after SIGTERM before its group is sent SIGKILL. */
const GRACE_MS = 2000;

/**
 * Starts the source, handing each line to `onLine`. A command runs in a process group of its own (not
 * sandboxed: it is the user's own, as in a pipeline), with standard input closed and its standard error
 * mixed into its output, as `2>&1` would; a file is followed as `tail -n 0 -F` follows it, from its end and
 * across rotation.
 */
export function startSource(
  source: FeedSource,
  onLine: (line: string) => void,
  maxChars: number,
): RunningSource {
  if (source.kind === "stdin") {
    const lines = splitLines(process.stdin, onLine, maxChars);
    return {
      label: "standard input",
      done: lines.then(() => ({ status: 0, how: "standard input ended" })),
      stop: async () => {
        process.stdin.destroy();
      },
    };
  }
  const argv = source.kind === "file" ? ["tail", "-n", "0", "-F", source.path] : source.argv;
  const label = source.kind === "file" ? source.path : shellWords(argv);
  const child = execa(argv[0]!, argv.slice(1), {
    // Its own group (and session), so a stop reaches what it started, and a Ctrl-C at the terminal reaches
    // ollie alone, which then stops it.
    detached: true,
    stdin: "ignore",
    // tail's complaints (a file that went away) are for the person, not the agent.
    stderr: source.kind === "file" ? "inherit" : "pipe",
    all: source.kind === "command",
    buffer: false,
    reject: false,
  });
  const output = source.kind === "command" ? child.all! : child.stdout!;
  const lines = splitLines(output, onLine, maxChars);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  // Its own session is out of the terminal's reach: should ollie exit before stopping it (an uncaught
  // error), it is stopped then.
  const atExit = () => signalGroup("SIGTERM");
  process.on("exit", atExit);
  void child.finally(() => process.off("exit", atExit));
  return {
    label,
    done: Promise.all([child, lines]).then(([result]) => ended(label, result)),
    stop: async () => {
      signalGroup("SIGTERM");
      const hard = setTimeout(() => signalGroup("SIGKILL"), GRACE_MS);
      await child;
      clearTimeout(hard);
    },
  };
}

/** A command's end as ollie's exit status (a shell's: 128 plus the signal's number) and in words. */
function ended(label: string, result: Result): { status: number; how: string } {
  if (result.exitCode !== undefined)
    return { status: result.exitCode, how: `${label} exited with status ${result.exitCode}` };
  if (result.signal)
    return {
      status: 128 + (constants.signals[result.signal] ?? 0),
      how: `${label} was killed by ${result.signal}`,
    };
  // It never ran (not found, not executable): as a shell says it.
  return { status: 127, how: `cannot run ${label}: ${result.originalMessage ?? result.shortMessage}` };
}

/** A command line as a person would type it: words with spaces or quotes in single quotes. */
export function shellWords(argv: readonly string[]): string {
  return argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`)).join(" ");
}
