import { readFile } from "node:fs/promises";
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { type FilePosition, PolicyError } from "../errors.js";
import { type EntryOrigin, type PolicyOrigins, recordOrigins } from "./origins.js";
import { PATH_LISTS } from "./path-lists.js";
import { type PolicyLayer, policyLayerSchema } from "./schema.js";
import { KNOWN_TEMPLATES, unknownTemplates } from "./templates.js";

/** Where a key path (and, for an unknown key, the key itself) is in the file; undefined for data from code. */
type Locate = (path: readonly PropertyKey[], unknownKey?: string) => FilePosition | undefined;

function keyOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}

function describe(issue: z.core.$ZodIssue): { path: PropertyKey[]; problem: string; unknownKey?: string } {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `'${k}'`).join(", ");
    return {
      path: issue.path,
      problem: `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`,
      ...(issue.keys[0] !== undefined && { unknownKey: issue.keys[0] }),
    };
  }
  return { path: issue.path, problem: issue.message };
}

/** Validates a layer, placing errors and entries with `locate` when the layer came from a file. */
function checkLayer(data: unknown, source: string, locate: Locate): PolicyLayer {
  const parsed = policyLayerSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues.map(describe);
    const more = rest.map((d) => `; ${keyOf(d.path)}: ${d.problem}`).join("");
    throw new PolicyError(
      `${first!.problem}${more}`,
      source,
      keyOf(first!.path),
      locate(first!.path, first!.unknownKey),
    );
  }
  const layer = parsed.data;
  const origins: PolicyOrigins = {};
  for (const list of PATH_LISTS) {
    const entries = new Map<string, EntryOrigin>();
    for (const [i, path] of (layer.filesystem?.[list] ?? []).entries()) {
      const position = locate(["filesystem", list, i]);
      const origin: EntryOrigin = { source, key: `filesystem.${list}[${i}]`, ...(position && { position }) };
      const unknown = unknownTemplates(path);
      if (unknown.length > 0) {
        throw new PolicyError(
          `unknown template variable {${unknown[0]}} (known: ${KNOWN_TEMPLATES})`,
          source,
          origin.key,
          position,
        );
      }
      if (!entries.has(path)) entries.set(path, origin);
    }
    if (entries.size > 0) origins[list] = entries;
  }
  recordOrigins(layer, origins);
  return layer;
}

/**
 * Checks a policy layer given as data (parsed YAML, or an object from code). `source` names it in errors.
 * Throws PolicyError naming the source, the key and the problem.
 */
export function validateLayer(data: unknown, source: string): PolicyLayer {
  return checkLayer(data, source, () => undefined);
}

function locator(doc: Document, lines: LineCounter): Locate {
  const at = (offset: number): FilePosition => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  return (path, unknownKey) => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
    if (unknownKey !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === unknownKey);
      if (pair && isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
    }
    return isNode(node) && node.range ? at(node.range[0]) : undefined;
  };
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
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const what = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    const position = e.linePos ? { line: e.linePos[0].line, column: e.linePos[0].col } : undefined;
    throw new PolicyError(what, file, undefined, position);
  }
  return checkLayer(doc.toJS(), file, locator(doc, lines));
}
