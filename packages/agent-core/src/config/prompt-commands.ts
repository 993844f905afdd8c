import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { runShellInGroup } from "@ollie/sandbox/process";
import { lastLines } from "../hooks/last-lines.js";

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

export interface PromptEnvironment {
  /** The directory the commands run in; $PWD. */
  cwd: string;
  /** Ollie's configuration directory; $OLLIE. */
  ollieDir: string;
  /** The rest of the environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How long one command may take (default 30 s). */
  timeoutMs?: number;
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
 * What a command or a file brings is not expanded again. A command that fails, times out or cannot start,
 * or a file that cannot be read, is an error: an agent must not run with half a prompt.
 */
export async function resolvePrompt(
  prompt: string | readonly string[] | undefined,
  where: PromptEnvironment,
): Promise<string> {
  if (prompt === undefined) return "";
  if (typeof prompt === "string") return expandPrompt(prompt, where);
  const outputs: string[] = [];
  for (const command of prompt) outputs.push(await runPromptCommand(command, where));
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
  const env = promptEnv(where);
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const command = COMMAND_LINE.exec(line)?.[1];
    const file = command === undefined ? FILE_LINE.exec(line)?.[1] : undefined;
    if (command !== undefined) out.push(withoutTrailingNewlines(await runPromptCommand(command, where)));
    else if (file !== undefined) out.push(withoutTrailingNewlines(await readPromptFile(file, where, env)));
    else out.push(expandVariables(ESCAPED_LINE.test(line) ? line.slice(1) : line, env));
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

function promptEnv(where: PromptEnvironment): NodeJS.ProcessEnv {
  return { ...(where.env ?? process.env), OLLIE: where.ollieDir, PWD: where.cwd };
}

async function readPromptFile(name: string, where: PromptEnvironment, env: NodeJS.ProcessEnv) {
  const file = resolve(where.cwd, expandVariables(name, env));
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PromptFileError(
      file,
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a directory"
          : `cannot be read: ${(error as Error).message}`,
    );
  }
}

/** Runs one prompt command; its standard output, or PromptCommandError. */
async function runPromptCommand(command: string, where: PromptEnvironment): Promise<string> {
  const timeoutMs = where.timeoutMs ?? 30_000;
  const { result: run, stopped } = await runShellInGroup(command, {
    cwd: where.cwd,
    env: promptEnv(where),
    timeoutMs,
  });
  if (stopped) throw new PromptCommandError(command, `did not finish within ${timeoutMs / 1000} s`);
  if (run.failed) {
    const said = lastLines(String(run.stderr ?? ""));
    throw new PromptCommandError(
      command,
      `failed (exit status ${run.exitCode ?? "none"})${said ? `: ${said}` : ""}`,
    );
  }
  return String(run.stdout);
}
