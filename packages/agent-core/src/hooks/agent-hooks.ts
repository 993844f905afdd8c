/** The lifecycle points a hook can be attached to (turnError has its own method). */
export type HookEvent =
  | "agentSpawn"
  | "preTurn"
  | "postTurn"
  | "preTool"
  | "postTool"
  | "preCompact"
  | "postCompact";

/** What the hooks of one event decided. */
export interface HookResult {
  /** `block`: refused (exit 2) — or, for an event that fails closed, could not run. */
  action: "continue" | "block";
  /** For `continue`: text for the context (exit-0 stdout). For `block`: what the refusal says. */
  output: string;
  /** Problems to report (a hook that crashed, timed out, could not start, or exited oddly), worded. */
  warnings: string[];
}

export const CONTINUE: HookResult = { action: "continue", output: "", warnings: [] };

/**
 * Where an agent's lifecycle hooks go: shell commands (`shellHooks`), or functions in this process. Each
 * method must not throw, and should honour `signal`.
 *
 * What a block means, per event: agentSpawn — the agent is not created; preTurn — the turn does not run;
 * postTurn — the turn goes on with the output as the next prompt (at most 3 times in a row); preTool — the
 * call is not run and the model is told why; postTool — the output replaces the result; preCompact — the
 * compaction does not happen; postCompact — nothing (it is reported as a warning: the compaction is done).
 * What `continue` output does: agentSpawn and postCompact — added to the context; preTurn — added to the
 * prompt; postTool — appended to the result; elsewhere it is ignored.
 */
export interface AgentHooks {
  /**
   * Whether any hook is attached to `event` (assumed so when this is absent). The agent skips an event with
   * none; for one with hooks it shows the state `hook: EVENT` while they run, so that what watches the agent
   * (a daemon parking idle agents, a status line) sees it busy.
   */
  handles?(event: HookEvent | "turnError"): boolean;
  /**
   * Runs an event's hooks. `canBlock` is false for an event that comes after the fact (postCompact: the
   * agent decides which): nothing is left to block, so a refusal should be reported among the warnings and
   * the event's other hooks still run. A `block` returned anyway is reported as a warning and ignored.
   */
  run?(
    event: HookEvent,
    payload: Record<string, unknown>,
    signal?: AbortSignal,
    canBlock?: boolean,
  ): Promise<HookResult>;
  /** The first failure of a turn, before any retry: resolve true to take it over and end the turn. */
  turnError?(payload: Record<string, unknown>, signal?: AbortSignal): Promise<boolean>;
}
