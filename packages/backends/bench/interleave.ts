/** The times of one measured function: every round's milliseconds, and the count its last run returned. */
export interface Timed {
  times: number[];
  count: number;
}

/**
 * Runs each function once unmeasured, then `rounds` times each, interleaved and in an order that turns
 * every round, so that a busy moment of a shared machine falls on all of them alike.
 */
export async function interleave(runs: Array<() => Promise<number> | number>, rounds = 7): Promise<Timed[]> {
  const out: Timed[] = runs.map(() => ({ times: [], count: 0 }));
  for (const run of runs) await run();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (k + round) % runs.length;
      const start = process.hrtime.bigint();
      out[i]!.count = await runs[i]!();
      out[i]!.times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return out;
}

/** The fastest and the median of `times`. */
export function minMedian(times: number[]): { min: number; median: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]! };
}
