import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { GenerationParams } from "@ollie/backends";
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

/** A profile file that cannot be used: which file, which key, and what is wrong. */
export class AgentConfigError extends Error {
  override readonly name = "AgentConfigError";
  constructor(
    readonly file: string,
    readonly key: string | undefined,
    readonly problem: string,
  ) {
    super(`${file}: ${key ? `${key}: ` : ""}${problem}`);
  }
}

/** Checks a parsed profile; `file` names it in errors. */
export function parseAgentConfig(json: unknown, file = "agent.json"): AgentConfig {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const key = [...path, issue.keys[0]!].join(".");
    const known = path.join(".") === "hooks" ? HOOK_NAMES : Object.keys(schema.shape);
    throw new AgentConfigError(file, key, `unknown key (the keys are: ${known.join(", ")})`);
  }
  throw new AgentConfigError(file, path.join(".") || undefined, issue.message);
}

/** Reads and checks `agents/NAME.json` under `agentsDir`. */
export async function loadAgentConfig(agentsDir: string, name: string): Promise<AgentConfig> {
  if (!/^[\w.-]+$/.test(name) || name.startsWith(".")) {
    throw new AgentConfigError(join(agentsDir, `${name}.json`), undefined, "not a profile name");
  }
  const file = join(agentsDir, `${name}.json`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AgentConfigError(
      file,
      undefined,
      code === "ENOENT" ? "no such profile" : (error as Error).message,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AgentConfigError(file, undefined, `not JSON: ${(error as Error).message}`);
  }
  return parseAgentConfig(json, file);
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
