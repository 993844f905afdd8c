import { checkConfig, type Locate, readConfigDocument } from "@ollie/config-file";
import { PolicyError } from "../errors.js";
import { type EntryOrigin, type PolicyOrigins, recordOrigins } from "./origins.js";
import { PATH_LISTS } from "./path-lists.js";
import { type PolicyLayer, policyLayerSchema } from "./schema.js";
import { KNOWN_TEMPLATES, unknownTemplates } from "./templates.js";

/** Validates a layer, placing errors and entries with `locate` when the layer came from a file. */
function checkLayer(data: unknown, source: string, locate: Locate): PolicyLayer {
  const layer = checkConfig(policyLayerSchema, data ?? {}, { file: source, locate, errorType: PolicyError });
  const origins: PolicyOrigins = {};
  for (const list of PATH_LISTS) {
    const entries = new Map<string, EntryOrigin>();
    for (const [i, path] of (layer.filesystem?.[list] ?? []).entries()) {
      const position = locate(["filesystem", list, i]);
      const origin: EntryOrigin = { source, key: `filesystem.${list}[${i}]`, ...(position && { position }) };
      const unknown = unknownTemplates(path);
      if (unknown.length > 0) {
        throw new PolicyError(source, {
          key: origin.key,
          problem: `unknown template variable {${unknown[0]}} (known: ${KNOWN_TEMPLATES})`,
          ...(position && { position }),
        });
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

/** Reads one policy file. A missing file is `undefined`; anything else wrong is a PolicyError. */
export async function loadPolicyFile(file: string): Promise<PolicyLayer | undefined> {
  const doc = await readConfigDocument(file, { format: "yaml", errorType: PolicyError });
  return doc && checkLayer(doc.data, file, doc.locate);
}
