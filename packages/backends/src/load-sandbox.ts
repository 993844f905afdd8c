/** The package that runs a user's shell commands in process trees of their own. */
const SANDBOX = "@ollie/sandbox";

/**
 * Something needed `@ollie/sandbox` and it is not installed. It is an optional peer of `@ollie/backends` and
 * `@ollie/agent-core`, needed only to run shell commands — a profile's `key_cmd`, a hook, a prompt command —
 * each in a process group of its own, so that nothing the command starts outlives it. Install it beside them.
 */
export class SandboxNotInstalledError extends Error {
  override readonly name = "SandboxNotInstalledError";
  /** The package to install. */
  readonly packageName = SANDBOX;

  constructor(
    /** What needed it, as the message names it: `the preTurn hook`, `the key_cmd of [openai]`. */
    readonly neededBy: string,
    options?: ErrorOptions,
  ) {
    super(`${neededBy} needs ${SANDBOX} to run its shell in a process group: npm i ${SANDBOX}`, options);
  }
}

/** Whether `err` says that the sandbox package itself, rather than something it imports, cannot be found. */
function isSandboxMissing(err: unknown): boolean {
  if (!(err instanceof Error) || (err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") return false;
  return err.message.includes(`'${SANDBOX}'`) || err.message.includes(`'${SANDBOX}/`);
}

/**
 * Loads a module of `@ollie/sandbox` when it is first needed — `load` is the caller's own
 * `() => import("@ollie/sandbox/process")`, so that it resolves from the package that declares the peer —
 * and turns its absence into a SandboxNotInstalledError naming `neededBy`. Other failures pass unchanged.
 */
export async function loadSandbox<T>(neededBy: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isSandboxMissing(err)) throw new SandboxNotInstalledError(neededBy, { cause: err });
    throw err;
  }
}
