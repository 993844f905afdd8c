/** A prompt command that failed: which one, its exit status, and what it said on stderr. */
export class PromptCommandError extends Error {
  override readonly name = "PromptCommandError";
  constructor(
    readonly command: string,
    readonly problem: string,
  ) {
    super(`prompt command '${command}' ${problem}`);
  }
}

/** A prompt's `@file` line names a file that cannot be read. */
export class PromptFileError extends Error {
  override readonly name = "PromptFileError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`prompt file '${file}' ${problem}`);
  }
}
