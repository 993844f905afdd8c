/** Where one prompt command runs, or one prompt file is read. */
export interface PromptPlace {
  /** The directory commands run in, and relative `@file` names start from: the agent's. */
  cwd: string;
  /** The command's whole environment ($OLLIE and $PWD included). */
  env: NodeJS.ProcessEnv;
  /** How long one command may take. */
  timeoutMs: number;
}

/**
 * How a profile's prompt commands run and its `@file` lines are read. Both act on what an agent may have
 * written — the files of its working directory, symbolic links among them — so a runner decides what that
 * input can reach: `ownerPromptRunner` (the default) runs commands as this process's user and reads files
 * only through links that stay inside the working directory; a daemon that sandboxes its agents' tools runs
 * them in the agent's own sandbox (olliesrv does).
 *
 * Contract: `command` resolves with the command's standard output, or rejects with a PromptCommandError
 * saying why (it failed, timed out, could not start, said too much); `file` resolves with the file's
 * contents, or rejects with a PromptFileError. Neither leaves a process running.
 */
export interface PromptRunner {
  command(command: string, where: PromptPlace): Promise<string>;
  /** `file` is absolute. */
  file(file: string, where: PromptPlace): Promise<string>;
}

/** The most a prompt command may print, or a prompt file hold, before it fails the prompt: 1 MiB. */
export const MAX_PROMPT_PART_BYTES = 1024 * 1024;
