/** How an agent compacts its history. */
export interface CompactionOptions {
  /** Compact before a request whose size reaches this fraction of the context window (default 0.5). */
  threshold: number;
  /** Compact on its own, at the threshold or when the provider says the context overflowed (default true). */
  auto: boolean;
  /** Messages kept verbatim at the end (default 8); a tool call is never separated from its results. */
  hotMessages: number;
  /** Entries of the one-line decision index (default 10). */
  warmEntries: number;
  /** Automatic compactions allowed without a user prompt in between, before the turn fails (default 3). */
  maxAutoInRow: number;
  /** A compaction that saves less than this fraction of the tokens counts as no progress (default 0.05). */
  minSavings: number;
  /** Where `{sessionId}.compaction.jsonl` snapshots go; none are written when unset. */
  snapshotDir?: string;
  /** The context window to assume when the backend does not say (default 128,000). */
  fallbackContextLength: number;
}

export const DEFAULT_COMPACTION: Readonly<CompactionOptions> = {
  threshold: 0.5,
  auto: true,
  hotMessages: 8,
  warmEntries: 10,
  maxAutoInRow: 3,
  minSavings: 0.05,
  fallbackContextLength: 128_000,
};

export type CompactionTrigger = "threshold" | "overflow" | "command";

/**
 * Whether to compact now. The one place every trigger goes through, so "auto off" really covers both the
 * threshold and the provider's overflow error; a command always compacts.
 */
export function compactionDecision(
  o: CompactionOptions,
  trigger: CompactionTrigger,
  state: { fraction: number; autoInRow: number },
): "compact" | "skip" | "give up" {
  if (trigger === "command") return "compact";
  if (!o.auto) return trigger === "overflow" ? "give up" : "skip";
  if (trigger === "threshold" && state.fraction < o.threshold) return "skip";
  return state.autoInRow >= o.maxAutoInRow ? "give up" : "compact";
}
