import type { Message, Tool, ToolResultMessage } from "@ollie/backends";
import type { SpendingGate } from "../budget/spending-gate.js";
import type { CompactionDone } from "../compaction/agent-compaction.js";
import type { CompactionOptions, CompactionTrigger } from "../compaction/compaction-options.js";
import type { ContextFigures } from "../context/context-meter.js";
import type { AgentEvent, AgentState } from "../events/agent-events.js";
import type { History } from "../history/history.js";
import type { TaskState } from "../history/task-state.js";
import type { UsageMeter } from "../history/usage-meter.js";
import type { HookEvent, HookResult } from "../hooks/agent-hooks.js";
import type { RetryPolicy } from "../model/retry-policy.js";
import type { Runtime } from "../runtime/runtime.js";
import type { DispatchOptions } from "./dispatch.js";
import type { SafetyLimits } from "./safety.js";

/** What a turn reads and changes of its agent. */
export interface TurnContext {
  /** The session the turn belongs to, and the profile the agent runs (what its telemetry says). */
  readonly sessionId: string;
  readonly profile: string | undefined;
  readonly runtime: Runtime;
  /** Looks for a changed tool set after a round of calls, and rebuilds the runtime if it changed. */
  refreshRuntime(signal: AbortSignal): Promise<void>;
  readonly history: History;
  readonly usage: UsageMeter;
  /** Where relative paths (read-cache files) are resolved; this process's cwd when unset. */
  readonly cwd: string | undefined;
  taskState: TaskState;
  readonly retry: RetryPolicy;
  readonly safety: SafetyLimits;
  readonly dispatch: DispatchOptions;
  /** Asked before each model request whether it may be made. */
  readonly spending: SpendingGate | undefined;
  emit(event: AgentEvent): void;
  setState(state: AgentState): void;
  /** Text injected while the turn runs, to be put before the model at the next step. */
  takeInjections(): string[];
  /** Saves the session; never throws (a failure is reported as an event). */
  persist(): Promise<void>;
  /** A turn runs: saved with the session, so that a restore knows the turn was cut off. */
  turnRunning: boolean;
  /** Records the round whose reply ends the history, before its calls run; never throws. */
  recordRound(): Promise<void>;
  /** Records a result of the running round as its call ends; never throws. */
  recordResult(result: ToolResultMessage): Promise<void>;
  /** The running round's results enter the history, in the model's order. */
  endRound(results: readonly ToolResultMessage[]): void;
  /** After a round: saves the session whole, unless the journal holds the round; never throws. */
  saveRound(): Promise<void>;
  readPlanStep(): Promise<string | undefined>;
  /** Runs an event's hooks (reporting their warnings). */
  hook(event: HookEvent, extra: Record<string, unknown>, signal: AbortSignal): Promise<HookResult>;
  /** The turnError hook: true when it took the failure over. Called once per turn, at the first failure. */
  turnError(error: unknown, signal: AbortSignal): Promise<boolean>;
  readonly compaction: CompactionOptions;
  /** Compacts the history; never throws. */
  compact(trigger: CompactionTrigger, signal: AbortSignal): Promise<CompactionDone>;
  /** Automatic compactions since the last prompt from the user. */
  autoCompactions: number;
  /** The size of a request against the model's window. */
  measure(messages: readonly Message[], tools: readonly Tool[]): Promise<ContextFigures>;
  /** The provider counted a request over `messages` at `inputTokens`. */
  counted(messages: readonly Message[], inputTokens: number): void;
}
