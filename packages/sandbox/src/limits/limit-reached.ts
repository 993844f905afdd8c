import { formatDuration, formatSize, type LimitName } from "../policy/limit-values.js";
import type { ResolvedLimits } from "./resolve-limits.js";

/** A limit a command reached, as its result says it. */
export interface LimitReached {
  limit: LimitName;
  /** The limit: tasks, bytes or seconds. */
  value: number;
  /** The limit in words, to follow "it reached": `the 512-process limit`, `its memory limit of 2 GiB`. */
  text: string;
}

/** The words that name a limit after "it reached". */
export function describeLimit(limit: LimitName, value: number): string {
  switch (limit) {
    case "processes":
      return `the ${value}-process limit`;
    case "memory":
      return `its memory limit of ${formatSize(value)}`;
    case "file_size":
      return `the ${formatSize(value)} file-size limit`;
    case "cpu_time":
      return `the CPU time limit of ${formatDuration(value)}`;
  }
}

const VALUE: Record<LimitName, keyof ResolvedLimits> = {
  processes: "processes",
  memory: "memoryBytes",
  file_size: "fileSize",
  cpu_time: "cpuTime",
};

/**
 * The limits a command reached: those its launcher reported from its cgroups (a fork refused, a process
 * killed for memory), and the one whose signal ended the command (SIGXCPU, SIGXFSZ).
 */
export function limitsReached(
  exit: { signal: NodeJS.Signals | null; reported: readonly string[] },
  limits: ResolvedLimits,
): LimitReached[] {
  const names = new Set<LimitName>();
  for (const word of exit.reported) if (word === "processes" || word === "memory") names.add(word);
  if (exit.signal === "SIGXCPU") names.add("cpu_time");
  if (exit.signal === "SIGXFSZ") names.add("file_size");
  return [...names].flatMap((limit) => {
    const value = limits[VALUE[limit]];
    return value === null ? [] : [{ limit, value, text: describeLimit(limit, value) }];
  });
}
