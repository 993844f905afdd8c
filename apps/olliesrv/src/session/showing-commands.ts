import type { PromptRunner } from "@ollie/agent-core/config";

/**
 * `runner`, calling `started` as each of its commands starts, so that the time prompt commands take can be
 * shown (the files it reads are not told: they take no time worth showing).
 */
export function showingCommands(runner: PromptRunner, started: () => void): PromptRunner {
  return {
    file: (file, where) => runner.file(file, where),
    command(command, where) {
      started();
      return runner.command(command, where);
    },
  };
}
