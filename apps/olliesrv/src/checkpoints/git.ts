import { execa } from "execa";
import { CheckpointLocked, CheckpointsUnavailable, GitCommandFailed } from "./errors.js";

/** The oldest git whose behaviour the engine relies on. */
const MIN_GIT: readonly [number, number] = [2, 30];

/**
 * How long one git command may take: far more than a checkpoint of a large tree needs, so that only a git
 * stuck on a file system that stopped answering is stopped — and the operations queued behind it go on.
 */
const GIT_TIMEOUT_MS = 5 * 60_000;

/** Who the shadow repository's commits are by. */
const IDENTITY = { name: "Ollie checkpoints", email: "checkpoints@ollie.invalid" };

/**
 * Settings given on every command line, where no configuration file can undo them: no hook runs, no
 * filesystem monitor is asked, and the shadow repository is used whoever owns the directory.
 */
const PINNED = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "safe.directory=*"];

/** Where a git command runs: the shadow repository, the directory it records, and the index it uses. */
export interface GitPlace {
  /** The directory whose state is recorded (the command's working directory and work tree). */
  workTree: string;
  /** The shadow git directory; absent only for `git init`. */
  gitDir?: string;
  /** An index other than the shadow repository's own. */
  indexFile?: string;
}

export interface GitRun {
  /** What the command reads on its standard input. */
  input?: Uint8Array | string;
  /** Extra `-c NAME=VALUE` settings for this command alone. */
  config?: string[];
  /**
   * Files it writes are the daemon user's alone (umask 077: 0600, 0700 executable): git keeps no
   * permission bit but the executable one, so a file it restores would otherwise be given to everyone
   * the umask lets read it — a `.env` that was 0600 coming back 0644.
   */
  private?: boolean;
}

/**
 * The environment of every git command: built from nothing, so that no GIT_* variable of the daemon's own
 * (GIT_DIR, GIT_INDEX_FILE of a repository it runs inside…) reaches git, and no user or system
 * configuration is read — HOME and XDG_CONFIG_HOME point into the shadow repository, where there is none.
 */
function gitEnv(place: GitPlace): Record<string, string> {
  const home = place.gitDir ?? place.workTree;
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.no-config`,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    ...(place.gitDir !== undefined && { GIT_DIR: place.gitDir, GIT_WORK_TREE: place.workTree }),
    ...(place.indexFile !== undefined && { GIT_INDEX_FILE: place.indexFile }),
  };
}

/** The line of git's standard error that says what failed: its last `fatal:` or `error:`, or its last. */
function lastLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.findLast((line) => /^(fatal|error):/.test(line)) ?? lines.at(-1) ?? "";
}

let commandsRun = 0;

/** How many git commands this process has run for checkpoints: what a test of a fast path counts. */
export function gitCommandsRun(): number {
  return commandsRun;
}

/**
 * Runs `git ARGS` for `place` and resolves with its standard output (bytes). A failure rejects with
 * GitCommandFailed — CheckpointLocked when git could not take a lock file — naming the directory, the
 * command and git's last line; a git that cannot be started rejects with CheckpointsUnavailable.
 */
export async function runGit(place: GitPlace, args: readonly string[], run: GitRun = {}): Promise<Buffer> {
  const config = (run.config ?? []).flatMap((setting) => ["-c", setting]);
  commandsRun++;
  const argv = [...PINNED, ...config, ...args];
  const result = await execa(
    run.private ? "/bin/sh" : "git",
    run.private ? ["-c", 'umask 077 && exec git "$@"', "git", ...argv] : argv,
    {
      cwd: place.workTree,
      env: gitEnv(place),
      extendEnv: false,
      encoding: "buffer",
      reject: false,
      stripFinalNewline: false,
      timeout: GIT_TIMEOUT_MS,
      ...(run.input !== undefined ? { input: run.input } : { stdin: "ignore" }),
    },
  );
  const command = `git ${args.join(" ")}`;
  if (result.exitCode === 0) return Buffer.from(result.stdout);
  // A git killed (its timeout, or a signal) has no exit status either, but it was started.
  if (result.exitCode === undefined && !result.timedOut && result.signal === undefined) {
    // Not started: no git, or no directory to start it in.
    const message = result.message ?? "";
    const gone = message.includes('"cwd" option is invalid');
    throw new CheckpointsUnavailable(
      place.workTree,
      gone
        ? "the directory does not exist (any more)"
        : result.code === "ENOENT"
          ? "git is not installed (no `git` on PATH)"
          : `git could not be started: ${lastLine(message)}`,
      { cause: result.cause },
    );
  }
  const stderr = result.timedOut
    ? `stopped after ${GIT_TIMEOUT_MS / 60_000} minutes`
    : result.signal !== undefined
      ? `killed by ${result.signal}`
      : lastLine(Buffer.from(result.stderr ?? new Uint8Array()).toString("utf8"));
  const lock = /Unable to create '([^']+\.lock)'|unable to create '([^']+\.lock)'/.exec(stderr);
  if (lock)
    throw new CheckpointLocked(place.workTree, command, result.exitCode, stderr, (lock[1] ?? lock[2])!);
  throw new GitCommandFailed(place.workTree, command, result.exitCode, stderr);
}

/** `git version 2.39.5` → [2, 39]. */
export function parseGitVersion(text: string): [number, number] | undefined {
  const match = /git version (\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** The version of the git of each PATH, asked once. */
const versions = new Map<string | undefined, Promise<[number, number]>>();

/**
 * The version of the `git` on PATH (asked once per PATH), or CheckpointsUnavailable when there is none or
 * it is older than 2.30.
 */
export function gitVersion(directory: string): Promise<[number, number]> {
  const path = process.env.PATH;
  let checked = versions.get(path);
  if (!checked) {
    checked = (async () => {
      const out = await runGit({ workTree: "/" }, ["--version"]);
      const version = parseGitVersion(out.toString("utf8"));
      if (!version) throw new Error(`git printed no version: ${out.toString("utf8").trim()}`);
      return version;
    })();
    versions.set(path, checked);
  }
  return checked.then(
    (version) => {
      const [major, minor] = version;
      if (major < MIN_GIT[0] || (major === MIN_GIT[0] && minor < MIN_GIT[1]))
        throw new CheckpointsUnavailable(
          directory,
          `git ${major}.${minor} is older than ${MIN_GIT.join(".")}, the oldest checkpoints work with`,
        );
      return version;
    },
    (error: unknown) => {
      versions.delete(path);
      const reason = error instanceof CheckpointsUnavailable ? error.reason : String(error);
      throw new CheckpointsUnavailable(directory, reason, { cause: error });
    },
  );
}
