import { loadSandbox } from "@ollie/backends";
import { lastLines } from "../hooks/last-lines.js";
import { PromptCommandError } from "./prompt-errors.js";
import { readPromptFileWithin } from "./prompt-file.js";
import { MAX_PROMPT_PART_BYTES, type PromptPlace, type PromptRunner } from "./prompt-runner.js";

/**
 * Runs prompt commands as this process's user, each through the shell in a process group of its own that
 * ends with it (`runShellInGroup`); reads `@file`s with `readPromptFileWithin`. For programs whose agents'
 * tools cannot write where the commands look — otherwise pass a runner that confines them (see PromptRunner).
 * Running a command needs `@ollie/sandbox` (an optional peer): without it, SandboxNotInstalledError.
 */
export const ownerPromptRunner: PromptRunner = {
  async command(command: string, where: PromptPlace): Promise<string> {
    const { runShellInGroup } = await loadSandbox(
      `the prompt command '${command}'`,
      () => import("@ollie/sandbox/process"),
    );
    const { result: run, stopped } = await runShellInGroup(command, {
      cwd: where.cwd,
      env: where.env,
      timeoutMs: where.timeoutMs,
      maxBuffer: MAX_PROMPT_PART_BYTES,
    });
    if (stopped) throw new PromptCommandError(command, `did not finish within ${where.timeoutMs / 1000} s`);
    if (run.isMaxBuffer)
      throw new PromptCommandError(command, `printed more than ${MAX_PROMPT_PART_BYTES / 1024} KiB`);
    if (run.failed) {
      const said = lastLines(String(run.stderr ?? ""));
      throw new PromptCommandError(
        command,
        `failed (exit status ${run.exitCode ?? "none"})${said ? `: ${said}` : ""}`,
      );
    }
    return String(run.stdout);
  },
  file: (file, where) => readPromptFileWithin(file, where.cwd),
};
