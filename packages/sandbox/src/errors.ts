/** A policy file (or layer) that cannot be used. `file` and `key` say where; the message says what is wrong. */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
  constructor(
    readonly problem: string,
    readonly file?: string,
    readonly key?: string,
  ) {
    super([file, key, problem].filter((part) => part !== undefined && part !== "").join(": "));
  }
}

/**
 * Sandboxed commands cannot run here: no Landlock, not Linux, or no launcher. Nothing runs unsandboxed
 * instead; `remedy` says what would fix it.
 */
export class SandboxUnavailableError extends Error {
  override readonly name = "SandboxUnavailableError";
  constructor(
    readonly reason: string,
    readonly remedy: string,
  ) {
    super(`${reason}. ${remedy}`);
  }
}
