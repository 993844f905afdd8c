import type { Backend, GenerationParams, Message, Tool } from "@ollie/backends";
import type { SpendingGate } from "../budget/spending-gate.js";
import type { AgentHooks } from "../hooks/agent-hooks.js";
import type { ToolExecutor, ToolInfo } from "../tools/tool-executor.js";
import { UnknownToolError } from "../tools/tool-set.js";
import { type EnvironmentFacts, gatherEnvironment, renderEnvironment } from "./environment.js";

/** What an agent runs with; a profile supplies one, and switching profile swaps it whole. */
export interface RuntimeSpec {
  backend: Backend;
  /** Where tool calls go; none means an agent without tools. */
  tools?: ToolExecutor;
  /**
   * The agent's part of the system preamble: text, or a function of the loaded tools that renders it (called
   * again whenever the tool set changes). Text gets a list of the tools appended. `systemPrompt` and the
   * environment section, when set, come before it.
   */
  prompt?: string | ((tools: readonly ToolInfo[]) => string);
  /**
   * The system section, first in the preamble: before the environment section and `prompt` (the agent's
   * own section).
   */
  systemPrompt?: string;
  /**
   * Adds the environment section after the system section: the working directory (`cwd`, default this
   * process's), the OS, today's date, the git branch when the directory is in a repository, and how many
   * tools are available. Gathered each time the runtime is built (and so when the tool set changes).
   */
  environment?: { cwd?: string };
  /** Put before every submitted prompt (per-turn instructions). */
  userPrompts?: readonly string[];
  params?: GenerationParams;
  /** Rounds of tool calls in one turn before the model is asked to finish (default 50). */
  maxSteps?: number;
  /**
   * Ollie's guidance to the model in a long turn (default off): a nudge after 5 rounds whose calls all
   * failed, after the same call 3 times in a row, after 8 rounds without a `PLAN:` block and after 5 rounds
   * that did the same thing, and the task state put back before the model every 10 rounds (see
   * `safety`). Off, the model gets nothing the program did not give it; the stops (10 failing rounds, 6
   * identical calls) apply either way. The agent profiles (`profileLoader`) turn it on.
   */
  guidance?: boolean;
  /** The model compaction uses, when it differs from the backend's (the backend is switched for it). */
  compactionModel?: string;
  /** A backend of its own for compaction summaries; takes precedence over `compactionModel`. */
  compactionBackend?: Backend;
  /** Resolves the system prompt again (re-runs its commands); called after each compaction. */
  reloadPrompt?: () => Promise<string>;
  /** Resolves `systemPrompt` again, as `reloadPrompt` does `prompt`; called after each compaction. */
  reloadSystemPrompt?: () => Promise<string>;
  /** Lifecycle hooks (`shellHooks` from `@ollie/agent-core/config` runs shell commands). */
  hooks?: AgentHooks;
  /**
   * What the agent may spend while it runs this profile (a profile's `budget`), unless
   * AgentOptions.spending holds it instead.
   */
  spending?: SpendingGate;
}

/** A RuntimeSpec made ready: tools listed, schemas and preamble rendered. */
export interface Runtime {
  readonly spec: RuntimeSpec;
  readonly backend: Backend;
  readonly tools: ToolExecutor;
  readonly toolInfo: ReadonlyMap<string, ToolInfo>;
  readonly toolSchemas: readonly Tool[];
  readonly toolRevision: number;
  readonly preamble: string;
  readonly params: GenerationParams;
  readonly maxSteps: number;
  readonly guidance: boolean;
  readonly userPrompts: readonly string[];
}

export const DEFAULT_MAX_STEPS = 50;

// What an agent without tools, parameters or per-turn prompts shares with every other: nothing to copy.
const NO_TOOLS: ToolExecutor = {
  list: async () => [],
  revision: async () => 0,
  call: async (name) => {
    throw new UnknownToolError(name);
  },
};
const NO_TOOL_INFO: ReadonlyMap<string, ToolInfo> = new Map();
const NO_SCHEMAS: readonly Tool[] = Object.freeze([]);
const NO_PARAMS: GenerationParams = Object.freeze({});
const NO_PROMPTS: readonly string[] = Object.freeze([]);

/** Lists the tools and renders the preamble. */
export async function buildRuntime(spec: RuntimeSpec, signal?: AbortSignal): Promise<Runtime> {
  const tools = spec.tools ?? NO_TOOLS;
  const [infos, revision, environment] = await Promise.all([
    tools.list(signal),
    tools.revision(signal),
    spec.environment ? gatherEnvironment(spec.environment.cwd ?? process.cwd()) : undefined,
  ]);
  return {
    spec,
    backend: spec.backend,
    tools,
    toolInfo: infos.length > 0 ? new Map(infos.map((t) => [t.name, t])) : NO_TOOL_INFO,
    toolSchemas:
      infos.length > 0
        ? infos.map(({ name, description, parameters }) => ({ name, description, parameters }))
        : NO_SCHEMAS,
    toolRevision: revision,
    preamble: renderPreamble(spec, infos, environment),
    params: spec.params ?? NO_PARAMS,
    maxSteps: spec.maxSteps ?? DEFAULT_MAX_STEPS,
    guidance: spec.guidance ?? false,
    userPrompts: spec.userPrompts ?? NO_PROMPTS,
  };
}

/** The runtime again if the tool set moved since it was built; the same one otherwise. */
export async function refreshRuntime(runtime: Runtime, signal?: AbortSignal): Promise<Runtime> {
  const revision = await runtime.tools.revision(signal);
  return revision === runtime.toolRevision ? runtime : buildRuntime(runtime.spec, signal);
}

/** The preamble's sections in order: system, environment, agent, tools (a function renders the last two). */
function renderPreamble(
  spec: RuntimeSpec,
  tools: readonly ToolInfo[],
  environment: EnvironmentFacts | undefined,
): string {
  const before = [spec.systemPrompt ?? "", environment ? renderEnvironment(environment, tools.length) : ""]
    .filter(Boolean)
    .join("\n\n");
  const rest = renderAgentAndTools(spec.prompt, tools);
  return `${before}${before && rest ? "\n\n" : ""}${rest}`;
}

function renderAgentAndTools(prompt: RuntimeSpec["prompt"], tools: readonly ToolInfo[]): string {
  if (typeof prompt === "function") return prompt(tools);
  const text = prompt ?? "";
  if (tools.length === 0) return text;
  const list = tools.map((t) => `- ${t.name}: ${t.description.split("\n", 1)[0]}`).join("\n");
  return `${text}${text ? "\n\n" : ""}## Tools\n\n${list}`;
}

/** The messages a request sends: the preamble as the system message, then the history. */
export function requestMessages(preamble: string, history: readonly Message[]): Message[] {
  const messages: Message[] = preamble ? [{ role: "system", content: preamble }] : [];
  for (const m of history) messages.push(m);
  return messages;
}
