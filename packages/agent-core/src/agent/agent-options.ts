import type { Message } from "@ollie/backends";
import type { SpendingGate } from "../budget/spending-gate.js";
import type { CompactionOptions } from "../compaction/compaction-options.js";
import type { AgentListener } from "../events/agent-events.js";
import type { TaskState } from "../history/task-state.js";
import type { UsageTotals } from "../history/usage-meter.js";
import type { DispatchOptions } from "../loop/dispatch.js";
import type { SafetyLimits } from "../loop/safety.js";
import type { RetryPolicy } from "../model/retry-policy.js";
import type { JournalEntry } from "../persist/journal.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import type { RuntimeSpec } from "../runtime/runtime.js";

/**
 * Loads a profile by name: the runtime it describes, made with a fresh tool executor, for an agent working
 * in `context.cwd` (an Agent fits).
 */
export type ProfileLoader = (
  name: string,
  context: { readonly cwd: string | undefined },
) => Promise<RuntimeSpec>;

export interface AgentOptions extends RuntimeSpec {
  /** Immutable identity (a 9P uname later); random by default. */
  id?: string;
  /** Display name; the id by default. */
  name?: string;
  /** The profile this runtime came from, if any. */
  profile?: string;
  cwd?: string;
  sessionId?: string;
  /** A history to carry on (restoring a session). */
  history?: readonly Message[];
  taskState?: TaskState;
  /** Session usage so far (restoring a session). */
  usage?: UsageTotals;
  /** What compaction summaries used so far, a part of `usage` (restoring a session). */
  compactionUsage?: UsageTotals;
  retry?: Partial<RetryPolicy>;
  safety?: Partial<SafetyLimits>;
  dispatch?: Partial<DispatchOptions>;
  /**
   * Asked before each model request of a turn whether it may be made (`spendingLimit({ usd, tokens })` holds
   * the agent to a budget); a refusal ends the turn in `budget`, the request not made. None: no budget.
   */
  spending?: SpendingGate;
  /** Prompts that may wait behind the running turn (default 64); more are refused. */
  maxQueue?: number;
  /**
   * Saves the whole session. Called when a turn takes its prompt and at the end of every turn; without a
   * `journal` (or when the journal cannot go on) also before a round's calls run, as each call ends and
   * after the round, so that a process killed at any point restarts with every finished round and call.
   * Called one at a time, in one queue with `journal`; a rejection is reported as an `error` event and does
   * not stop the turn.
   */
  persist?: (session: PersistedSession) => Promise<void>;
  /**
   * Appends an entry to the session's journal and resolves once it is durable (flushed to the disk): the
   * reply of a round before its first call runs, each result as its call ends. Much cheaper than a whole
   * save per call; it goes on from a save, so it is used with `persist`. The contract:
   * - entries and saves come one at a time, in order; a save that succeeded holds every entry before it, so
   *   the journal may be emptied then (`saveSession(file, session, { journal })` does);
   * - to restore, apply the entries written since the last save to it with `replayJournal`, then
   *   `Agent.resume` (or `loadSession(file, { journal })`, which does both for files);
   * - a rejection is not reported: the agent falls back to whole saves, which report their own failures,
   *   until one succeeds.
   */
  journal?: (entry: JournalEntry) => Promise<void>;
  /** The next unchecked step of the session's plan file, for the task state. */
  readPlanStep?: () => Promise<string | undefined>;
  /** A listener subscribed from the start, so it also hears what happens while the agent is made. */
  onEvent?: AgentListener;
  /** How the history is compacted (thresholds, zones, snapshots); `auto: false` turns automatic compaction off. */
  compaction?: Partial<CompactionOptions>;
  /** The model's context window, when the backend's figure should not be used. */
  contextLength?: number;
  /** What `switchProfile` loads profiles with. */
  profiles?: ProfileLoader;
}
