import {
  LIMIT_FORMS,
  type LimitName,
  memoryLimit,
  parseDuration,
  parseProcesses,
  parseSize,
  UNLIMITED,
} from "./limit-values.js";
import { originsOf, type PolicyOrigins } from "./origins.js";
import { PATH_LISTS } from "./path-lists.js";
import type { SandboxPolicy } from "./policy.js";
import type { PolicyLayer } from "./schema.js";

function union<T>(a: T[], b: T[]): T[] {
  return [...new Set([...a, ...b])];
}

/** A limit a layer sets, as kept (null for "unlimited"), or the earlier one when it sets none. */
function limit<T>(
  name: LimitName,
  given: unknown,
  earlier: T | null,
  parse: (v: unknown) => T | undefined,
): T | null {
  if (given === undefined) return earlier;
  if (given === UNLIMITED) return null;
  const value = parse(given);
  // The layer was validated; a value that does not parse here is a bug, not the user's mistake.
  if (value === undefined) throw new TypeError(`limits.${name}: ${LIMIT_FORMS[name].problem}`);
  return value;
}

function mergeLimits(base: SandboxPolicy["limits"], given: PolicyLayer["limits"]): SandboxPolicy["limits"] {
  return {
    processes: limit("processes", given?.processes, base.processes, parseProcesses),
    memory: limit("memory", given?.memory, base.memory, memoryLimit),
    fileSize: limit("file_size", given?.file_size, base.fileSize, parseSize),
    cpuTime: limit("cpu_time", given?.cpu_time, base.cpuTime, parseDuration),
  };
}

/**
 * Lays `layer` over `base`: booleans and limits it sets replace the earlier value; lists add to the earlier
 * lists (duplicates dropped), unless the layer names the list in `replace`, in which case its list is the list.
 */
export function mergeLayer(base: SandboxPolicy, layer: PolicyLayer, source: string): SandboxPolicy {
  const replaces = new Set(layer.replace ?? []);
  const list = <T>(key: string, earlier: T[], given: T[] | undefined): T[] => {
    if (given === undefined) return earlier;
    return replaces.has(key as never) ? [...new Set(given)] : union(earlier, given);
  };
  const fs = { ...base.filesystem };
  const given = originsOf(layer);
  const origins: PolicyOrigins = { ...base.origins };
  for (const name of PATH_LISTS) {
    fs[name] = list(`filesystem.${name}`, fs[name], layer.filesystem?.[name]);
    if (!given[name]) continue;
    // The first layer to give a path is where it comes from, unless this layer replaces the list.
    const earlier = replaces.has(`filesystem.${name}`) ? [] : [...(origins[name] ?? [])];
    origins[name] = new Map([...given[name], ...earlier]);
  }
  return {
    bestEffort: layer.general?.best_effort ?? base.bestEffort,
    ignoreMissing: layer.general?.ignore_missing ?? base.ignoreMissing,
    filesystem: fs,
    network: {
      enabled: layer.network?.enabled ?? base.network.enabled,
      unrestricted: layer.network?.unrestricted ?? base.network.unrestricted,
      bindTcp: list("network.bind_tcp", base.network.bindTcp, layer.network?.bind_tcp),
      connectTcp: list("network.connect_tcp", base.network.connectTcp, layer.network?.connect_tcp),
    },
    limits: mergeLimits(base.limits, layer.limits),
    userNamespaces: layer.general?.user_namespaces ?? base.userNamespaces,
    sources: [...base.sources, source],
    origins,
  };
}

/** The policy that grants nothing and limits nothing: the starting point layers are laid over. */
export function emptyPolicy(): SandboxPolicy {
  return {
    bestEffort: false,
    ignoreMissing: false,
    filesystem: { ro: [], rox: [], rw: [], rwx: [] },
    network: { enabled: false, unrestricted: false, bindTcp: [], connectTcp: [] },
    limits: { processes: null, memory: null, fileSize: null, cpuTime: null },
    userNamespaces: false,
    sources: [],
  };
}
