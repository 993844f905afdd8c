/** What went wrong with the checkpoints of `directory`; the subclasses are the cases a caller acts on. */
export class CheckpointError extends Error {
  override readonly name: string = "CheckpointError";
  constructor(
    readonly directory: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`checkpoints of ${directory}: ${message}`, options);
  }
}

/**
 * Checkpoints cannot be kept for this directory at all — no usable `git`, a directory that is not one, a
 * shadow repository that belongs to another directory. `reason` is written for a person.
 */
export class CheckpointsUnavailable extends CheckpointError {
  override readonly name = "CheckpointsUnavailable";
  constructor(
    directory: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(directory, `unavailable: ${reason}`, options);
  }
}

/** A git command of the shadow repository failed: the command, its exit status and its last words. */
export class GitCommandFailed extends CheckpointError {
  override readonly name: string = "GitCommandFailed";
  constructor(
    directory: string,
    readonly command: string,
    readonly exitCode: number | undefined,
    /** The last line git wrote to its standard error. */
    readonly stderr: string,
  ) {
    super(directory, `\`${command}\` failed (exit status ${exitCode ?? "none"}): ${stderr || "no message"}`);
  }
}

/**
 * Another process holds one of the shadow repository's lock files (its index or a ref). This daemon's own
 * operations wait for each other, so the holder is another program — or a git that was killed and left the
 * lock behind, which a person may remove.
 */
export class CheckpointLocked extends GitCommandFailed {
  override readonly name = "CheckpointLocked";
  constructor(
    directory: string,
    command: string,
    exitCode: number | undefined,
    stderr: string,
    readonly lockFile: string,
  ) {
    super(directory, command, exitCode, stderr);
  }
}

/** `rewind` was asked for a checkpoint the owner does not have. */
export class UnknownCheckpoint extends CheckpointError {
  override readonly name = "UnknownCheckpoint";
  constructor(
    directory: string,
    readonly owner: string,
    readonly n: number,
  ) {
    super(directory, `${owner} has no checkpoint ${n}`);
  }
}
