import { ConfigError, readConfigFile } from "@ollie/config-file";
import { z } from "zod";

const operationSchema = z.strictObject({
  name: z.string().regex(/^[\w.-]+$/, "an operation name is letters, digits, '.', '_' or '-'"),
  /** The command a request must start with, word for word (the request may add arguments after it). */
  argv: z.array(z.string().min(1)).min(1),
  /** Whether a person must approve each request (default: required). */
  approval: z.enum(["required", "none"]).default("required"),
  /** Seconds the operation may run. */
  timeout: z.number().positive().default(600),
});

const policySchema = z.strictObject({ operations: z.array(operationSchema).default([]) });

export type BypassOperation = z.infer<typeof operationSchema>;
export type BypassPolicy = z.infer<typeof policySchema>;

/** A bypass policy file that cannot be used: `problems` says where and why. */
export class BypassPolicyError extends ConfigError {
  override readonly name = "BypassPolicyError";
}

export const EMPTY_BYPASS_POLICY: BypassPolicy = { operations: [] };

/**
 * Reads `bypass.yaml`: the only operations that may run outside the sandbox, each a command prefix and
 * whether a person must approve it. A missing file allows nothing.
 */
export async function loadBypassPolicy(file: string): Promise<BypassPolicy> {
  const policy = await readConfigFile(policySchema, file, { format: "yaml", errorType: BypassPolicyError });
  return policy ?? EMPTY_BYPASS_POLICY;
}

/** The policy's operation called `name`, if it has one. */
export function operationNamed(policy: BypassPolicy, name: string): BypassOperation | undefined {
  return policy.operations.find((o) => o.name === name);
}

/** The operation a command falls under, if the policy lists one whose argv it starts with. */
export function operationFor(
  policy: BypassPolicy,
  name: string,
  argv: readonly string[],
): BypassOperation | undefined {
  const op = operationNamed(policy, name);
  if (!op || argv.length < op.argv.length) return undefined;
  return op.argv.every((word, i) => argv[i] === word) ? op : undefined;
}
