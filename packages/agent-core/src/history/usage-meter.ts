import { costOf, type Usage } from "@ollie/backends";

/** Token and cost totals over some span (a turn, a session). `inputTokens` includes cached tokens. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
  requests: number;
  costUsd: number;
}

export function emptyTotals(): UsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheCreationTokens: 0,
    requests: 0,
    costUsd: 0,
  };
}

/**
 * Adds up what each request used, for the running turn and for the session. A request's cost is what the
 * provider reported, else the price table's figure for the model that served it.
 */
export class UsageMeter {
  turn: UsageTotals = emptyTotals();
  session: UsageTotals;
  /** What compaction summaries used over the session: a part of `session` (and of `turn`, for one in a turn). */
  compaction: UsageTotals;
  /** The cost of the last finished turn. */
  lastTurnCostUsd = 0;

  constructor(session?: UsageTotals, compaction?: UsageTotals) {
    this.session = session ? { ...session } : emptyTotals();
    this.compaction = compaction ? { ...compaction } : emptyTotals();
  }

  startTurn(): void {
    this.turn = emptyTotals();
  }

  endTurn(): void {
    this.lastTurnCostUsd = this.turn.costUsd;
  }

  /** Records one request; returns its cost. */
  add(model: string, usage: Usage): number {
    return this.record(model, usage, [this.turn, this.session]);
  }

  /**
   * Records a compaction summary's request: in the compaction totals and the session's, and in the turn's
   * when it was made during one (`inTurn`). Returns its cost.
   */
  addCompaction(model: string, usage: Usage, inTurn: boolean): number {
    const spans = inTurn ? [this.compaction, this.turn, this.session] : [this.compaction, this.session];
    return this.record(model, usage, spans);
  }

  private record(model: string, usage: Usage, spans: readonly UsageTotals[]): number {
    const cost = costOf(model, usage);
    for (const totals of spans) {
      totals.inputTokens += usage.inputTokens;
      totals.outputTokens += usage.outputTokens;
      totals.cachedInputTokens += usage.cachedInputTokens;
      totals.cacheCreationTokens += usage.cacheCreationTokens;
      totals.requests += 1;
      totals.costUsd += cost;
    }
    return cost;
  }
}
