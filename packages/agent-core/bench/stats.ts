import { appendFileSync } from "node:fs";

/** Min and median of a set of samples: what the benchmarks print, each beside its baseline's. */
export interface Summary {
  min: number;
  median: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]! };
}

/** `min / median` with `digits` decimals. */
export function minMedian(s: Summary, digits = 2): string {
  return `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)}`;
}

/**
 * Runs each case once per round, in an order that rotates from round to round so that no case always
 * follows the same one, and returns every case's samples (the first `warmup` rounds dropped).
 */
export async function interleaved<K extends string>(
  cases: Record<K, () => Promise<number>>,
  rounds: number,
  warmup: number,
): Promise<Record<K, number[]>> {
  const names = Object.keys(cases) as K[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < warmup + rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      const took = await cases[name]();
      if (round >= warmup) samples[name].push(took);
    }
  }
  return samples;
}

/** A row of the table `npm run bench` ends with (scripts/bench.mjs), when it runs this benchmark. */
export interface SummaryRow {
  order: number;
  measure: string;
  ours: string;
  baseline: string;
  ratio?: string;
  goal?: string;
  met?: boolean;
}

export function addSummaryRow(row: SummaryRow): void {
  const file = process.env.OLLIE_BENCH_SUMMARY;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
