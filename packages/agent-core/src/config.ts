// @ollie/agent-core/config: agent profiles on disk (JSON checked with zod), prompts made by running shell
// commands, the loader Agent.switchProfile uses, and hooks that run shell commands. Kept apart from the main
// entry because it reads files and starts processes.

// Running hooks and prompt commands needs @ollie/sandbox, an optional peer; without it, this error.
export { SandboxNotInstalledError } from "@ollie/backends";
export {
  type AgentConfig,
  AgentConfigError,
  generationParams,
  HOOK_NAMES,
  loadAgentConfig,
  parseAgentConfig,
} from "./config/agent-config.js";
export { ownerPromptRunner } from "./config/owner-prompt-runner.js";
export { type ProfileSources, profileLoader } from "./config/profile-loader.js";
export { type PromptEnvironment, resolvePrompt } from "./config/prompt-commands.js";
export { PromptCommandError, PromptFileError } from "./config/prompt-errors.js";
export { readPromptFileWithin } from "./config/prompt-file.js";
export { MAX_PROMPT_PART_BYTES, type PromptPlace, type PromptRunner } from "./config/prompt-runner.js";
export type { HookRun, HookRunOptions } from "./hooks/run-hook.js";
export { type HookCommands, shellHooks } from "./hooks/shell-hooks.js";
