import { type Backend, loadSandbox } from "@ollie/backends";
import type { ProfileLoader } from "../agent/agent-options.js";
import { spendingLimit } from "../budget/spending-gate.js";
import { shellHooks } from "../hooks/shell-hooks.js";
import type { RuntimeSpec } from "../runtime/runtime.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import { type AgentConfig, generationParams, loadAgentConfig } from "./agent-config.js";
import { type PromptEnvironment, promptReadsOutside, resolvePrompt } from "./prompt-commands.js";

export interface ProfileSources {
  /** Where `NAME.json` profiles are. */
  agentsDir: string;
  /**
   * Reads a profile's config (default: `loadAgentConfig(agentsDir, name)`, the file as it is now). A daemon
   * that keeps the last good version of each profile, so that a file broken while it is being edited does
   * not break new agents, supplies its own.
   */
  config?(name: string): Promise<AgentConfig>;
  /** A backend of its own for a backends.conf profile (undefined: the default one). BackendPool.fresh fits. */
  backend(profile: string | undefined): Promise<Backend>;
  /**
   * The compaction model a backends.conf profile names (its `compaction_model`), used when the agent profile
   * names none: `(name) => pool.profile(name).compactionModel` with a BackendPool. Without it, or when
   * neither names one, summaries go to the agent's own model.
   */
  compactionModel?(profile: string | undefined): string | undefined | Promise<string | undefined>;
  /** A new tool executor for the profile (a fresh tool server connection, or an in-process set). */
  tools(config: AgentConfig, name: string): Promise<ToolExecutor>;
  /** Where prompt commands run; the agent's cwd is used when it has one. */
  prompt: Omit<PromptEnvironment, "cwd"> & { cwd?: string };
  /**
   * Where prompt commands and hooks run when not in the agent's directory: an agent whose tools run on
   * another machine has its directory there, while its commands and hooks run here.
   */
  commandsCwd?: string;
  /** How long one hook command may run (default 60 s). */
  hookTimeoutMs?: number;
}

/**
 * Loads a profile into a RuntimeSpec: the config read and checked, its prompts resolved (commands run, files
 * read — and again after each compaction), the preamble's environment section for the agent's cwd, its
 * backend made with the profile's model (and another for its compaction model: the agent profile's, else
 * the backends.conf profile's), its hooks as shell commands, and a fresh tool executor. What
 * `Agent.switchProfile` calls. A profile with hooks or prompt commands needs `@ollie/sandbox` installed;
 * without it the load fails with SandboxNotInstalledError.
 */
export function profileLoader(sources: ProfileSources): ProfileLoader {
  return async (name, context) => {
    const config = await (sources.config?.(name) ?? loadAgentConfig(sources.agentsDir, name));
    // Hooks run their shells through @ollie/sandbox, an optional peer: without it a profile with hooks is
    // refused now (SandboxNotInstalledError), rather than each hook failing as its event comes.
    const hooked = Object.entries(config.hooks ?? {}).find(([, commands]) => commands?.length)?.[0];
    if (hooked)
      await loadSandbox(`the ${hooked} hook of profile ${name}`, () => import("@ollie/sandbox/process"));
    const cwd = context.cwd ?? sources.prompt.cwd ?? process.cwd();
    const where = { ...sources.prompt, cwd: sources.commandsCwd ?? cwd };
    const compactionModel = config.compactionModel ?? (await sources.compactionModel?.(config.backend));
    const [prompt, systemPrompt, backend, compactionBackend] = await Promise.all([
      resolvePrompt(config.prompt, where),
      config.systemPrompt === undefined ? undefined : resolvePrompt(config.systemPrompt, where),
      sources.backend(config.backend),
      compactionModel ? sources.backend(config.backend) : undefined,
    ]);
    if (config.model) backend.setModel(config.model);
    if (compactionBackend && compactionModel) compactionBackend.setModel(compactionModel);
    const spec: RuntimeSpec = {
      backend,
      tools: await sources.tools(config, name),
      prompt,
      ...(systemPrompt !== undefined && { systemPrompt }),
      environment: { cwd },
      params: generationParams(config),
      ...(config.userPrompts && { userPrompts: config.userPrompts }),
      ...(config.maxSteps !== undefined && { maxSteps: config.maxSteps }),
      ...(config.budget && { spending: spendingLimit(config.budget) }),
      // An agent made from a profile is Ollie's agent: it gets the loop's guidance in a long turn.
      guidance: true,
      ...(compactionModel && { compactionModel }),
      ...(compactionBackend && { compactionBackend }),
      // Commands and files can bring rules and context that must survive a compaction: they are read again.
      ...(promptReadsOutside(config.prompt) && { reloadPrompt: () => resolvePrompt(config.prompt, where) }),
      ...(promptReadsOutside(config.systemPrompt) && {
        reloadSystemPrompt: () => resolvePrompt(config.systemPrompt, where),
      }),
      ...(config.hooks && {
        hooks: shellHooks(config.hooks, {
          cwd: where.cwd,
          env: { ...(sources.prompt.env ?? process.env), OLLIE: sources.prompt.ollieDir },
          ...(sources.hookTimeoutMs !== undefined && { timeoutMs: sources.hookTimeoutMs }),
        }),
      }),
    };
    return spec;
  };
}
