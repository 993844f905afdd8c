import { totalmem } from "node:os";
import { memoryBytes } from "../policy/limit-values.js";
import type { SandboxPolicy } from "../policy/policy.js";

/** A policy's limits on this machine: tasks, bytes and seconds, null where it sets none. */
export interface ResolvedLimits {
  processes: number | null;
  memoryBytes: number | null;
  fileSize: number | null;
  cpuTime: number | null;
}

/** The limits of `limits` here: a share of the RAM becomes bytes of this machine's `totalBytes`. */
export function resolveLimits(limits: SandboxPolicy["limits"], totalBytes = totalmem()): ResolvedLimits {
  return {
    processes: limits.processes,
    memoryBytes: limits.memory === null ? null : memoryBytes(limits.memory, totalBytes),
    fileSize: limits.fileSize,
    cpuTime: limits.cpuTime,
  };
}
