import type { z } from "zod";

type Def = { type: string; shape?: Record<string, z.ZodType>; [k: string]: unknown };

const WRAPPERS = ["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional", "lazy"];

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
}

function unwrap(schema: unknown): Def | undefined {
  let def = defOf(schema);
  for (let hops = 0; def && hops < 16; hops++) {
    if (WRAPPERS.includes(def.type)) {
      const inner = def.type === "lazy" ? (def.getter as () => unknown)() : def.innerType;
      def = defOf(inner);
    } else if (def.type === "pipe") def = defOf(def.in);
    else return def;
  }
  return def;
}

/**
 * The keys an object at `path` inside `schema` may have, for telling a user who wrote an unknown key what the
 * known ones are. Undefined where the path goes through a union or anything else with no single shape.
 */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let def = unwrap(schema);
  for (const step of path) {
    if (!def) return undefined;
    if (def.type === "object" && def.shape && typeof step === "string") def = unwrap(def.shape[step]);
    else if (def.type === "array") def = unwrap(def.element);
    else if (def.type === "record") def = unwrap(def.valueType);
    else return undefined;
  }
  if (def?.type === "object" && def.shape) return Object.keys(def.shape);
  // A record keyed by an enum (zod's partialRecord) takes exactly the enum's values as keys.
  const keys = def?.type === "record" ? unwrap(def.keyType) : undefined;
  return keys?.type === "enum" ? Object.values(keys.entries as Record<string, string>) : undefined;
}
