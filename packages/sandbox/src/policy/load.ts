import { readFile } from "node:fs/promises";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { PolicyError } from "../errors.js";
import { PATH_LISTS } from "./policy.js";
import { type PolicyLayer, policyLayerSchema } from "./schema.js";
import { KNOWN_TEMPLATES, unknownTemplates } from "./templates.js";

function keyOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}

function describe(issue: z.core.$ZodIssue): { key: string; problem: string } {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `'${k}'`).join(", ");
    return { key: keyOf(issue.path), problem: `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}` };
  }
  return { key: keyOf(issue.path), problem: issue.message };
}

/**
 * Checks a policy layer given as data (parsed YAML, or an object from code). `source` names it in errors.
 * Throws PolicyError naming the source, the key and the problem.
 */
export function validateLayer(data: unknown, source: string): PolicyLayer {
  const parsed = policyLayerSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues.map(describe);
    const more = rest.map((d) => `; ${d.key}: ${d.problem}`).join("");
    throw new PolicyError(`${first!.problem}${more}`, source, first!.key);
  }
  const layer = parsed.data;
  for (const list of PATH_LISTS) {
    for (const [i, path] of (layer.filesystem?.[list] ?? []).entries()) {
      const unknown = unknownTemplates(path);
      if (unknown.length > 0) {
        throw new PolicyError(
          `unknown template variable {${unknown[0]}} (known: ${KNOWN_TEMPLATES})`,
          source,
          `filesystem.${list}[${i}]`,
        );
      }
    }
  }
  return layer;
}

/** Reads one policy file. A missing file is `undefined`; anything else wrong is a PolicyError. */
export async function loadPolicyFile(file: string): Promise<PolicyLayer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new PolicyError(`cannot read: ${(err as Error).message}`, file);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const where = e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}: ` : "";
    const what = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new PolicyError(`${where}${what}`, file);
  }
  return validateLayer(doc.toJS(), file);
}
