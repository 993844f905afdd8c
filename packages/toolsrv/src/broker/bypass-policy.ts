import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
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

/** A bypass policy file that cannot be used. */
export class BypassPolicyError extends Error {
  override readonly name = "BypassPolicyError";
}

export const EMPTY_BYPASS_POLICY: BypassPolicy = { operations: [] };

/**
 * Reads `bypass.yaml`: the only operations that may run outside the sandbox, each a command prefix and
 * whether a person must approve it. A missing file allows nothing.
 */
export async function loadBypassPolicy(file: string): Promise<BypassPolicy> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return EMPTY_BYPASS_POLICY;
    throw new BypassPolicyError(`${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new BypassPolicyError(`${file}: not YAML: ${(error as Error).message}`);
  }
  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BypassPolicyError(`${file}: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  return parsed.data;
}

/** The operation a command falls under, if the policy lists one whose argv it starts with. */
export function operationFor(
  policy: BypassPolicy,
  name: string,
  argv: readonly string[],
): BypassOperation | undefined {
  const op = policy.operations.find((o) => o.name === name);
  if (!op || argv.length < op.argv.length) return undefined;
  return op.argv.every((word, i) => argv[i] === word) ? op : undefined;
}
