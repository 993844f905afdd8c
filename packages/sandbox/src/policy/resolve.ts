import { join } from "node:path";
import { ollieDirs } from "@ollie/config-file/dirs";
import { PolicyError } from "../errors.js";
import { DEFAULT_POLICY } from "./defaults.js";
import { loadPolicyFile, validateLayer } from "./load.js";
import { emptyPolicy, mergeLayer } from "./merge.js";
import { type EntryOrigin, entryError, type PolicyOrigins } from "./origins.js";
import { PATH_LISTS } from "./path-lists.js";
import type { SandboxPolicy } from "./policy.js";
import type { PolicyLayer } from "./schema.js";
import { expandPath, type TemplateContext } from "./templates.js";

export interface ResolveOptions {
  /** A named overlay: `$XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml`, which must exist. */
  name?: string;
  /** Where XDG_CONFIG_HOME and HOME come from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Start from a policy that grants nothing instead of the built-in defaults. */
  withoutDefaults?: boolean;
  /** Layers given by code, laid over the files (validated like them). */
  layers?: ReadonlyArray<{ layer: unknown; source: string }>;
}

/** Where the policy files are: `{ global, overlays }` under `$XDG_CONFIG_HOME/ollie`. */
export function policyPaths(env: NodeJS.ProcessEnv = process.env): { global: string; overlays: string } {
  const { config } = ollieDirs(env);
  return { global: join(config, "sandbox.yaml"), overlays: join(config, "sandbox") };
}

/**
 * Builds the policy in force: the built-in defaults, then `$XDG_CONFIG_HOME/ollie/sandbox.yaml` if it exists,
 * then the named overlay, then any layers from code. Template variables stay unexpanded until a command runs.
 */
export async function resolvePolicy(options: ResolveOptions = {}): Promise<SandboxPolicy> {
  const { global, overlays } = policyPaths(options.env);
  let policy = options.withoutDefaults
    ? emptyPolicy()
    : mergeLayer(emptyPolicy(), validateLayer(DEFAULT_POLICY, "built-in defaults"), "built-in defaults");
  const globalLayer = await loadPolicyFile(global);
  if (globalLayer) policy = mergeLayer(policy, globalLayer, global);
  if (options.name !== undefined) {
    if (!/^[\w.-]+$/.test(options.name) || options.name.startsWith(".")) {
      throw new PolicyError(undefined, {
        problem: `'${options.name}' is not a policy name (letters, digits, '.', '_', '-')`,
      });
    }
    const file = join(overlays, `${options.name}.yaml`);
    const layer = await loadPolicyFile(file);
    if (!layer) throw new PolicyError(file, { problem: `no sandbox policy named '${options.name}'` });
    policy = mergeLayer(policy, layer, file);
  }
  for (const { layer, source } of options.layers ?? []) {
    policy = mergeLayer(policy, validateLayer(layer, source), source);
  }
  return policy;
}

/** Lays one more layer over a policy (validated; `source` names it in errors). */
export function withLayer(
  policy: SandboxPolicy,
  layer: PolicyLayer | unknown,
  source: string,
): SandboxPolicy {
  return mergeLayer(policy, validateLayer(layer, source), source);
}

/**
 * The policy with every template expanded for a command run in `ctx.cwd` with `ctx.env`. An entry that
 * cannot be expanded is a PolicyError placed where it was written.
 */
export function expandPolicy(policy: SandboxPolicy, ctx: TemplateContext): SandboxPolicy {
  const fs = { ...policy.filesystem };
  const origins: PolicyOrigins = {};
  for (const name of PATH_LISTS) {
    const given = policy.origins?.[name];
    const expanded = new Map<string, EntryOrigin>();
    fs[name] = policy.filesystem[name].map((p, i) => {
      const origin = given?.get(p);
      const path = expandPath(p, ctx, (problem) => entryError(problem, origin, `filesystem.${name}[${i}]`));
      if (origin && !expanded.has(path)) expanded.set(path, origin);
      return path;
    });
    origins[name] = expanded;
  }
  return { ...policy, filesystem: fs, origins };
}
