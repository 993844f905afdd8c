import { processesMarked } from "../process/process-tree.js";

/**
 * The running processes whose environment holds `marker` (NAME=VALUE): what a test's commands started and
 * nothing ended. Zombies do not count (their environment is gone, and they run nothing).
 */
export const survivors = (marker: string): number[] => processesMarked(marker);

/** Waits (up to `limitMs`) until no process carries `marker`; resolves to those still there then. */
export async function survivorsAfter(marker: string, limitMs = 5000): Promise<number[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const left = survivors(marker);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until `count` processes carry `marker` (the command's tree is up). */
export async function started(marker: string, count: number, limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (survivors(marker).length < count) {
    if (Date.now() > until) throw new Error(`only ${survivors(marker).length} of ${count} processes started`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
