import { type FilePosition, PolicyError } from "../errors.js";
import type { PathList } from "./path-lists.js";

/** Where one entry of a path list was written: its layer's source, its key there, its line and column. */
export interface EntryOrigin {
  source: string;
  /** e.g. `filesystem.ro[2]`: the entry's place in its own layer. */
  key: string;
  position?: FilePosition;
}

/** For each path list, where each of its entries came from (the first layer that gave it). */
export type PolicyOrigins = Partial<Record<PathList, ReadonlyMap<string, EntryOrigin>>>;

/** The origins of a validated layer, kept beside it rather than in it (a layer is the file's plain data). */
const layers = new WeakMap<object, PolicyOrigins>();

export function recordOrigins(layer: object, origins: PolicyOrigins): void {
  layers.set(layer, origins);
}

export function originsOf(layer: object): PolicyOrigins {
  return layers.get(layer) ?? {};
}

/** A PolicyError about an entry, placed where the user wrote it when that is known. */
export function entryError(
  problem: string,
  origin: EntryOrigin | undefined,
  fallbackKey: string,
): PolicyError {
  if (!origin) return new PolicyError(undefined, { key: fallbackKey, problem });
  const { source, key, position } = origin;
  return new PolicyError(source, { key, problem, ...(position && { position }) });
}
