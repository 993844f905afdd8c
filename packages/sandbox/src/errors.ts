import { ConfigError } from "@ollie/config-file";

export type { FilePosition } from "@ollie/config-file";

/**
 * A policy file (or layer) that cannot be used. `file`, `key` and, for files, `position` say where — the
 * user's own entry, not its place in the merged policy; the message (`FILE:LINE:COLUMN: KEY: PROBLEM`, as
 * compilers write it) says what is wrong, every problem of the layer at once (`problems`).
 */
export class PolicyError extends ConfigError {
  override readonly name = "PolicyError";
}

/**
 * Sandboxed commands cannot run here: no Landlock, not Linux, or no launcher. Nothing runs unsandboxed
 * instead; `remedy` says what would fix it.
 */
export class SandboxUnavailableError extends Error {
  override readonly name: string = "SandboxUnavailableError";
  constructor(
    readonly reason: string,
    readonly remedy: string,
  ) {
    super(`${reason}. ${remedy}`);
  }
}

/**
 * The launcher service stopped (it was killed, or it failed) while it ran or started a command: that command
 * and everything it started ended with it, without an exit status of its own. The next command starts a new
 * service. `why` is how the service ended (`killed by SIGKILL`, `exit status 1`, or its last line).
 */
export class LauncherServiceStoppedError extends SandboxUnavailableError {
  override readonly name = "LauncherServiceStoppedError";
  constructor(
    readonly launcher: string,
    readonly why: string,
  ) {
    super(`The sandbox launcher service ${launcher} stopped (${why})`, "The next command starts it again");
  }
}

/** How a granted path exposes a protected one. */
export type ProtectedRelation = "is" | "holds" | "lies inside";

/**
 * The policy would let a command reach a path it must never reach: it grants the path itself, a directory
 * holding it, or a path inside it. Paths are compared as real paths, so a symlink to an ancestor counts.
 * Nothing runs.
 */
export class ProtectedPathError extends Error {
  override readonly name = "ProtectedPathError";
  constructor(
    /** The path as the policy grants it, templates expanded. */
    readonly granted: string,
    /** The policy list that grants it, e.g. `filesystem.rw`. */
    readonly list: string,
    readonly protectedPath: string,
    readonly relation: ProtectedRelation,
    /** Where `granted` really is, when a symlink makes that differ. */
    realGranted?: string,
  ) {
    const really = realGranted !== undefined && realGranted !== granted ? ` (really '${realGranted}')` : "";
    super(`${list} grants '${granted}'${really}, which ${relation} the protected path '${protectedPath}'`);
  }
}
