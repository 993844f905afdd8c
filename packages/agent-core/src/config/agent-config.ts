import { join } from "node:path";
import type { GenerationParams } from "@ollie/backends";
import { type CheckOptions, ConfigError, checkConfig, readConfigDocument } from "@ollie/config-file";
import { z } from "zod";

/** Shell commands for one hook: one command, or several run in order. */
const commands = z.union([z.string().min(1), z.array(z.string().min(1))]);

/** The hooks a profile may set: every lifecycle event, and turnError. */
export const HOOK_NAMES = [
  "agentSpawn",
  "preTurn",
  "preTool",
  "postTool",
  "turnError",
  "preCompact",
  "postCompact",
  "postTurn",
] as const;

const schema = z.strictObject({
  /** One line on what the profile is for: what a person or a router choosing among profiles reads. */
  description: z.string().max(500).optional(),
  /**
   * The agent's section of the system preamble: text (its `!command`, `@file` and `$VAR` lines expanded), or
   * shell commands whose standard outputs, concatenated, make it.
   */
  prompt: z.union([z.string(), z.array(z.string().min(1))]).optional(),
  /** The system section, first in the preamble (before the environment and `prompt`); as `prompt`. */
  systemPrompt: z.union([z.string(), z.array(z.string().min(1))]).optional(),
  /** Put before every prompt the user submits. */
  userPrompts: z.array(z.string()).optional(),
  /** The backends.conf profile; its default when absent. */
  backend: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** The tools this agent may use; all when absent. */
  tools: z.array(z.string().min(1)).optional(),
  /** The tools loaded from the start; the others are loaded when asked for. */
  autoLoad: z.array(z.string().min(1)).optional(),
  maxSteps: z.number().int().positive().optional(),
  /**
   * What an agent running this profile may spend over its session: US dollars, tokens (input and output),
   * or both (see spendingLimit). Under olliesrv, the budget a session made with it starts with.
   */
  budget: z
    .strictObject({
      usd: z.number().positive().optional(),
      tokens: z.number().int().positive().optional(),
    })
    .optional(),
  /** The model compaction summaries go to (default: the backends.conf profile's `compaction_model`). */
  compactionModel: z.string().min(1).optional(),
  hooks: z.partialRecord(z.enum(HOOK_NAMES), commands).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  reasoningBudget: z.number().int().nonnegative().optional(),
  reasoningEffort: z.enum(["minimal", "low", "medium", "high"]).optional(),
  /** Provider fields merged into the request body as they are. */
  extra: z.record(z.string(), z.unknown()).optional(),
});

/** An agent profile, as `agents/NAME.json` holds it. */
export type AgentConfig = z.infer<typeof schema>;

/** A profile file that cannot be used: which file, which key, and what is wrong (every problem in `problems`). */
export class AgentConfigError extends ConfigError {
  override readonly name = "AgentConfigError";
}

/** Checks a parsed profile; `where` names it in errors (and places problems in its text). */
export function parseAgentConfig(json: unknown, where: string | CheckOptions = "agent.json"): AgentConfig {
  const options = typeof where === "string" ? { file: where } : where;
  return checkConfig(schema, json, { ...options, errorType: AgentConfigError });
}

/** Reads and checks `agents/NAME.json` under `agentsDir`. */
export async function loadAgentConfig(agentsDir: string, name: string): Promise<AgentConfig> {
  const file = join(agentsDir, `${name}.json`);
  if (!/^[\w.-]+$/.test(name) || name.startsWith(".")) {
    throw new AgentConfigError(file, { problem: "not a profile name" });
  }
  const doc = await readConfigDocument(file, { format: "json", errorType: AgentConfigError });
  if (!doc) throw new AgentConfigError(file, { problem: "no such profile" });
  return parseAgentConfig(doc.data, { file, locate: doc.locate });
}

/** The generation parameters a profile sets. */
export function generationParams(config: AgentConfig): GenerationParams {
  const params: GenerationParams = {};
  if (config.temperature !== undefined) params.temperature = config.temperature;
  if (config.topP !== undefined) params.topP = config.topP;
  if (config.maxTokens !== undefined) params.maxTokens = config.maxTokens;
  if (config.stop !== undefined) params.stop = config.stop;
  if (config.seed !== undefined) params.seed = config.seed;
  if (config.reasoningBudget !== undefined) params.reasoningBudget = config.reasoningBudget;
  if (config.reasoningEffort !== undefined) params.reasoningEffort = config.reasoningEffort;
  if (config.extra !== undefined) params.extra = config.extra;
  return params;
}
