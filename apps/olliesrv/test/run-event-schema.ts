import type { RunEvent } from "@ollie/client";
import { expectTypeOf } from "vitest";
import { z } from "zod";

/**
 * The lines of `ollie run --json` (version 1), as a checker: each line's type with exactly its fields. It is
 * held to `RunEvent`, the type @ollie/client exports, below: the two cannot drift apart.
 */

const totals = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative(),
  cacheCreationTokens: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
});

const turnStatus = z.enum(["done", "interrupted", "maxsteps", "blocked", "handled", "budget", "error"]);

export const runEventSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("start"),
    version: z.literal(1),
    session: z.string().min(1),
    agent: z.string().min(1),
    profile: z.string().min(1),
    backend: z.string().optional(),
    model: z.string().optional(),
    cwd: z.string().min(1),
    approvals: z.enum(["deny", "fail"]),
    maxTurns: z.number().int().positive().optional(),
    maxCostUsd: z.number().nonnegative().optional(),
    kept: z.boolean(),
  }),
  z.strictObject({ type: z.literal("text"), delta: z.string() }),
  z.strictObject({ type: z.literal("reasoning"), delta: z.string() }),
  z.strictObject({ type: z.literal("discard"), text: z.string() }),
  z.strictObject({
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    type: z.literal("tool_result"),
    id: z.string(),
    name: z.string(),
    output: z.string(),
    error: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("usage"),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cachedInputTokens: z.number().int().nonnegative(),
    cacheCreationTokens: z.number().int().nonnegative(),
    reasoningTokens: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative(),
    total: totals,
  }),
  z.strictObject({
    type: z.literal("approval"),
    request: z.number().int().positive(),
    agent: z.string(),
    operation: z.string(),
    command: z.string(),
    reason: z.string(),
    decision: z.literal("denied"),
    message: z.string(),
  }),
  z.strictObject({ type: z.literal("notice"), message: z.string() }),
  z.strictObject({ type: z.literal("error"), message: z.string() }),
  z.strictObject({
    type: z.literal("outcome"),
    status: z.union([turnStatus, z.enum(["maxcost", "approval"])]),
    exitStatus: z.number().int().nonnegative(),
    steps: z.number().int().nonnegative(),
    usage: totals,
    costUsd: z.number().nonnegative(),
    reply: z.string(),
    error: z.string().optional(),
    session: z.string().min(1),
    kept: z.boolean(),
  }),
]);

expectTypeOf<z.infer<typeof runEventSchema>>().toEqualTypeOf<RunEvent>();

/** Every line of `stdout` as a checked RunEvent; a line that is not one fails with what is wrong. */
export function runEvents(stdout: string): RunEvent[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed = runEventSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`not a run event: ${line}\n${parsed.error.message}`);
      return parsed.data;
    });
}
