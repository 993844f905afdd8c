import { resolve } from "node:path";
import { ownerPromptRunner } from "./owner-prompt-runner.js";
import type { PromptPlace, PromptRunner } from "./prompt-runner.js";

export interface PromptEnvironment {
  /** The directory the commands run in; $PWD. */
  cwd: string;
  /** Ollie's configuration directory; $OLLIE. */
  ollieDir: string;
  /** The rest of the environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How long one command may take (default 30 s). */
  timeoutMs?: number;
  /**
   * Runs the commands and reads the files (default `ownerPromptRunner`: as this process's user, files only
   * through links that stay in `cwd`). What they read may be an agent's doing: see PromptRunner.
   */
  runner?: PromptRunner;
}

/**
 * The text a profile's `prompt` (or `systemPrompt`) makes. An array is shell commands, each run in turn with
 * $OLLIE and $PWD set, their standard outputs concatenated. A string is text, expanded line by line:
 *
 * - a line starting with `!` is a shell command (run as above); its output, less trailing newlines, takes
 *   the line's place;
 * - a line starting with `@` names a file (relative to `cwd`; `$VAR`s in the name expanded); its contents,
 *   less trailing newlines, take the line's place;
 * - in any other line `$NAME` and `${NAME}` are replaced by the variable's value (nothing when it is unset),
 *   the environment being the one commands get. `\$` is a literal `$`, and a line starting with `\!` or `\@`
 *   is text starting with `!` or `@`.
 *
 * What a command or a file brings is not expanded again. A command that fails, times out, cannot start or
 * prints more than 1 MiB, or a file that cannot be read, is an error (PromptCommandError, PromptFileError):
 * an agent must not run with half a prompt. `where.runner` runs the commands and reads the files.
 */
export async function resolvePrompt(
  prompt: string | readonly string[] | undefined,
  where: PromptEnvironment,
): Promise<string> {
  if (prompt === undefined) return "";
  if (typeof prompt === "string") return expandPrompt(prompt, where);
  const place = promptPlace(where);
  const outputs: string[] = [];
  for (const command of prompt) outputs.push(await runnerOf(where).command(command, place));
  return outputs.join("");
}

/** Whether a string prompt runs commands or reads files, so that resolving it again may give another text. */
export function promptReadsOutside(prompt: string | readonly string[] | undefined): boolean {
  if (prompt === undefined) return false;
  if (typeof prompt !== "string") return true;
  return prompt.split("\n").some((line) => COMMAND_LINE.test(line) || FILE_LINE.test(line));
}

const COMMAND_LINE = /^!\s*(\S.*?)\s*$/;
const FILE_LINE = /^@\s*(\S.*?)\s*$/;
const ESCAPED_LINE = /^\\[!@]/;
const VARIABLE = /\\\$|\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/g;

async function expandPrompt(text: string, where: PromptEnvironment): Promise<string> {
  const place = promptPlace(where);
  const runner = runnerOf(where);
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const command = COMMAND_LINE.exec(line)?.[1];
    const file = command === undefined ? FILE_LINE.exec(line)?.[1] : undefined;
    if (command !== undefined) out.push(withoutTrailingNewlines(await runner.command(command, place)));
    else if (file !== undefined) {
      const path = resolve(where.cwd, expandVariables(file, place.env));
      out.push(withoutTrailingNewlines(await runner.file(path, place)));
    } else out.push(expandVariables(ESCAPED_LINE.test(line) ? line.slice(1) : line, place.env));
  }
  return out.join("\n");
}

/** `$NAME` and `${NAME}` replaced by their values (nothing when unset); `\$` is a `$`. */
function expandVariables(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(VARIABLE, (match, bare: string | undefined, braced: string | undefined) =>
    match === "\\$" ? "$" : (env[bare ?? braced ?? ""] ?? ""),
  );
}

function withoutTrailingNewlines(text: string): string {
  return text.replace(/[\r\n]+$/, "");
}

function promptPlace(where: PromptEnvironment): PromptPlace {
  return {
    cwd: where.cwd,
    env: { ...(where.env ?? process.env), OLLIE: where.ollieDir, PWD: where.cwd },
    timeoutMs: where.timeoutMs ?? 30_000,
  };
}

function runnerOf(where: PromptEnvironment): PromptRunner {
  return where.runner ?? ownerPromptRunner;
}
