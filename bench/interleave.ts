// Shared by the packages' benchmarks (imported by relative path: benchmarks are not published).
/**
 * Runs each measurement once unmeasured, then `rounds` times each, interleaved, in an order that turns every
 * round (a b, b a, … for two), so that a busy moment of a shared machine falls on all of them alike. Each
 * measurement returns its own milliseconds, so that what it sets up before starting its clock is left out.
 * Returns every measurement's milliseconds, one a round.
 */
export async function interleave(runs: Array<() => Promise<number>>, rounds: number): Promise<number[][]> {
  const out: number[][] = runs.map(() => []);
  for (const run of runs) await run();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (k + round) % runs.length;
      out[i]!.push(await runs[i]!());
    }
  }
  return out;
}

/** The fastest and the median of `times`. */
export function minMedian(times: number[]): { min: number; median: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]! };
}

/** Milliseconds since `start` (a `process.hrtime.bigint()`). */
export const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
