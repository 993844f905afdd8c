/**
 * The values of a policy's `limits`, as a file writes them and as they are kept: sizes (`512MiB`, `2GiB`, or
 * a number of bytes), a share of the machine's RAM for memory (`25%`), durations (`90s`, `10m`, `1h`, or a
 * number of seconds), process counts, or `unlimited`.
 */

export const UNLIMITED = "unlimited";

/** The limits a policy sets, each applied per group of commands or per process (see `SandboxPolicy`). */
export type LimitName = "processes" | "memory" | "file_size" | "cpu_time";

/** A memory limit as the policy gives it: bytes, or a share (0–1] of the machine's RAM. */
export type MemoryLimit = { bytes: number } | { share: number };

const SIZE_UNITS: Record<string, number> = { b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };
/** The most tasks the kernel allows (PID_MAX_LIMIT on 64-bit). */
const MAX_TASKS = 4_194_304;

/** Bytes from `512MiB`, `2G`, `1.5GiB` or a whole number; undefined when it is not a size. */
export function parseSize(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:ib)?|(b))?$/i.exec(value.trim());
  const unit = m ? (m[2] ?? m[3] ?? "b").toLowerCase() : "b";
  // A part of a byte is no size.
  if (!m || (unit === "b" && !/^\d+$/.test(m[1]!))) return undefined;
  const bytes = Math.floor(Number(m[1]) * SIZE_UNITS[unit]!);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** The share of RAM in `25%`, as a fraction; undefined when it is not a percentage in (0, 100]. */
export function parseShare(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*%$/.exec(value.trim());
  const share = m ? Number(m[1]) / 100 : Number.NaN;
  return share > 0 && share <= 1 ? share : undefined;
}

/** Whole seconds (rounded up) from `90s`, `10m`, `1h` or a number of seconds. */
export function parseDuration(value: unknown): number | undefined {
  const m =
    typeof value === "number"
      ? [String(value), String(value), "s"]
      : typeof value === "string"
        ? /^(\d+(?:\.\d+)?)\s*([smh])?$/.exec(value.trim())
        : null;
  if (!m) return undefined;
  const seconds = Math.ceil(Number(m[1]) * DURATION_UNITS[m[2] ?? "s"]!);
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : undefined;
}

export function parseProcesses(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_TASKS
    ? value
    : undefined;
}

/** What a file may write for each limit, and the problem when it writes something else. */
export const LIMIT_FORMS: Record<LimitName, { parse(v: unknown): unknown; problem: string }> = {
  processes: {
    parse: parseProcesses,
    problem: `a number of processes from 1 to ${MAX_TASKS}, or "${UNLIMITED}"`,
  },
  memory: {
    parse: (v) => (parseShare(v) === undefined ? parseSize(v) : v),
    problem: `a size such as 512MiB or 2GiB, a share of the RAM such as 25%, or "${UNLIMITED}"`,
  },
  file_size: { parse: parseSize, problem: `a size such as 64MiB or 1GiB, or "${UNLIMITED}"` },
  cpu_time: {
    parse: parseDuration,
    problem: `a duration such as 90s, 10m or 1h (a number is seconds), or "${UNLIMITED}"`,
  },
};

/** A memory limit as written (`2GiB`, `25%`, bytes), as kept. */
export function memoryLimit(value: unknown): MemoryLimit | undefined {
  const share = parseShare(value);
  if (share !== undefined) return { share };
  const bytes = parseSize(value);
  return bytes === undefined ? undefined : { bytes };
}

/** The bytes a memory limit comes to on a machine with `totalBytes` of RAM (whole pages). */
export function memoryBytes(limit: MemoryLimit, totalBytes: number): number {
  const bytes = "bytes" in limit ? limit.bytes : Math.floor(totalBytes * limit.share);
  return Math.max(4096, bytes - (bytes % 4096));
}

/** `512 MiB`, `1.5 GiB`, `300 B`: the largest unit that keeps at least 1, with one decimal at most. */
export function formatSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (i < units.length - 1 && bytes >= 1024 ** (i + 1)) i++;
  const n = Math.round((bytes / 1024 ** i) * 10) / 10;
  return `${n} ${units[i]}`;
}

/** `90 s`, `10 min`, `1 h`: the largest unit that divides it. */
export function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
