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

/** The totals of a span nothing was used in yet, shared until the first request is recorded in it. */
const NOTHING: UsageTotals = Object.freeze(emptyTotals());

/**
 * Adds up what each request used, for the running turn and for the session. A request's cost is what the
 * provider reported, else the price table's figure for the model that served it. A span's totals are
 * made at its first request: until then it reads as zero, so an agent that never asked costs nothing here.
 */
export class UsageMeter {
  private turnTotals: UsageTotals | undefined;
  private sessionTotals: UsageTotals | undefined;
  private compactionTotals: UsageTotals | undefined;
  /** The cost of the last finished turn. */
  lastTurnCostUsd = 0;

  constructor(session?: UsageTotals, compaction?: UsageTotals) {
    if (session) this.sessionTotals = { ...session };
    if (compaction) this.compactionTotals = { ...compaction };
  }

  /** The running (or last) turn's totals; read-only: copy them to keep them. */
  get turn(): Readonly<UsageTotals> {
    return this.turnTotals ?? NOTHING;
  }

  /** The session's totals; read-only: copy them to keep them. */
  get session(): Readonly<UsageTotals> {
    return this.sessionTotals ?? NOTHING;
  }

  /** What compaction summaries used over the session: a part of `session` (and of `turn`, for one in a turn). */
  get compaction(): Readonly<UsageTotals> {
    return this.compactionTotals ?? NOTHING;
  }

  startTurn(): void {
    this.turnTotals = undefined;
  }

  endTurn(): void {
    this.lastTurnCostUsd = this.turn.costUsd;
  }

  /** Records one request; returns its cost. */
  add(model: string, usage: Usage): number {
    this.turnTotals ??= emptyTotals();
    this.sessionTotals ??= emptyTotals();
    return this.record(model, usage, [this.turnTotals, this.sessionTotals]);
  }

  /**
   * Records a compaction summary's request: in the compaction totals and the session's, and in the turn's
   * when it was made during one (`inTurn`). Returns its cost.
   */
  addCompaction(model: string, usage: Usage, inTurn: boolean): number {
    this.compactionTotals ??= emptyTotals();
    this.sessionTotals ??= emptyTotals();
    const spans = [this.compactionTotals, this.sessionTotals];
    if (inTurn) {
      this.turnTotals ??= emptyTotals();
      spans.push(this.turnTotals);
    }
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
