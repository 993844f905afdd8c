import { lastLines, runShellInGroup } from "../process/shell-in-group.js";

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
 * The system prompt a profile's `prompt` makes: text as it is, or each shell command run in turn (with $OLLIE
 * and $PWD set) and their standard outputs concatenated. A command that fails, times out or cannot start
 * is an error: an agent must not run with half a prompt.
 */
export async function resolvePrompt(
  prompt: string | readonly string[] | undefined,
  where: PromptEnvironment,
): Promise<string> {
  if (prompt === undefined) return "";
  if (typeof prompt === "string") return prompt;
  const outputs: string[] = [];
  const timeoutMs = where.timeoutMs ?? 30_000;
  for (const command of prompt) {
    const { result: run, stopped } = await runShellInGroup(command, {
      cwd: where.cwd,
      env: { ...(where.env ?? process.env), OLLIE: where.ollieDir, PWD: where.cwd },
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
    outputs.push(String(run.stdout));
  }
  return outputs.join("");
}
