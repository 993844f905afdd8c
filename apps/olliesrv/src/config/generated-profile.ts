import type { AgentConfig } from "@ollie/agent-core/config";
import { z } from "zod";

/**
 * A profile an agent wrote for a narrow task (`subagent_generate`), kept with its session. It can say less
 * than a profile file: its prompt is text taken as it is (no `!command`, `@file` or `$VAR` is run or read, as
 * those run outside the sandbox), and it has no hooks, no system section and no provider extras.
 */
export const generatedProfileSchema = z.strictObject({
  description: z.string().max(500).optional(),
  prompt: z.string().min(1).max(32_768),
  /** The tools it may use (all that its maker may, when absent). */
  tools: z
    .array(z.string().regex(/^[a-z0-9_]+$/))
    .max(100)
    .optional(),
  /** The tools loaded from its start. */
  autoLoad: z
    .array(z.string().regex(/^[a-z0-9_]+$/))
    .max(100)
    .optional(),
  backend: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  maxSteps: z.number().int().positive().max(200).optional(),
});

export type GeneratedProfile = z.infer<typeof generatedProfileSchema>;

/** The name of a generated profile: what an agent's name may be. */
export const GENERATED_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Reads a generated profile's JSON text, or says what is wrong with it (`name` places it). */
export function parseGeneratedProfile(text: string, name: string): GeneratedProfile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}.json: not JSON: ${(error as Error).message}`);
  }
  const parsed = generatedProfileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(the profile)"}: ${i.message}`);
  throw new Error(`${name}.json: ${problems.join("; ")}`);
}

/** Text that the prompt expansion gives back unchanged: lines that would run or read something are escaped. */
export function literalPrompt(text: string): string {
  return text
    .split("\n")
    .map((line) => (/^[!@]/.test(line) ? `\\${line}` : line).replaceAll("$", "\\$"))
    .join("\n");
}

/** The agent profile a generated one makes; `systemPrompt` is the shipped system section's command. */
export function generatedAgentConfig(
  profile: GeneratedProfile,
  systemPrompt: AgentConfig["prompt"],
): AgentConfig {
  return {
    ...(systemPrompt !== undefined && { systemPrompt }),
    prompt: literalPrompt(profile.prompt),
    ...(profile.tools && { tools: profile.tools }),
    autoLoad: profile.autoLoad ?? profile.tools?.slice(0, 12) ?? ["client_9p"],
    ...(profile.backend && { backend: profile.backend }),
    ...(profile.model && { model: profile.model }),
    ...(profile.maxSteps && { maxSteps: profile.maxSteps }),
  };
}
