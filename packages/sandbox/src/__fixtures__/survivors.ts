import { expect, vi } from "vitest";
import { processesMarked } from "../process/process-tree.js";

/**
 * The running processes whose environment holds `marker` (NAME=VALUE): what a test's commands started and
 * nothing ended. Zombies do not count (their environment is gone, and they run nothing).
 */
export const survivors = (marker: string): number[] => processesMarked(marker);

/** Waits (up to `limitMs`) until no process carries `marker`; fails naming those still there. */
export async function ended(marker: string, limitMs = 5000): Promise<void> {
  await vi.waitFor(() => expect(survivors(marker)).toEqual([]), { timeout: limitMs, interval: 25 });
}

/** Waits (up to `limitMs`) until `count` processes carry `marker` (the command's tree is up). */
export async function started(marker: string, count: number, limitMs = 10_000): Promise<void> {
  await vi.waitFor(() => expect(survivors(marker).length).toBeGreaterThanOrEqual(count), {
    timeout: limitMs,
    interval: 10,
  });
}
