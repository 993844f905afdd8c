// @ollie/agent-core/config: agent profiles on disk (JSON checked with zod), prompts made by running shell
// commands, the loader Agent.switchProfile uses, and hooks that run shell commands. Kept apart from the main
// entry because it reads files and starts processes.

export {
  type AgentConfig,
  AgentConfigError,
  generationParams,
  HOOK_NAMES,
  loadAgentConfig,
  parseAgentConfig,
} from "./config/agent-config.js";
export { type ProfileSources, profileLoader } from "./config/profile-loader.js";
export {
  PromptCommandError,
  type PromptEnvironment,
  PromptFileError,
  resolvePrompt,
} from "./config/prompt-commands.js";
export type { HookRun, HookRunOptions } from "./hooks/run-hook.js";
export { type HookCommands, shellHooks } from "./hooks/shell-hooks.js";
