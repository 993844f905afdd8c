import type { ToolCall } from "@ollie/backends";
import { callKey } from "./stable-json.js";

/** The thresholds of the loop's safety checks, in rounds of tool calls (or calls, for repeats). */
export interface SafetyLimits {
  /** Consecutive rounds whose calls all failed before the model is told to change approach. */
  errorNudgeRounds: number;
  /** … and before the turn is ended. */
  errorAbortRounds: number;
  /** Rounds without a `PLAN:` block before the model is asked for one. */
  replanRounds: number;
  /** Rounds in a row with the same last action (call and result) before the model is told it is stuck. */
  stallRounds: number;
  /** The same tool with the same arguments this many times in a row: the model is told. */
  repeatNudgeCalls: number;
  /** … and at this many the turn is ended. */
  repeatAbortCalls: number;
  /** The task state is put back in front of the model every this many rounds. */
  taskStateEveryRounds: number;
}

export const DEFAULT_SAFETY_LIMITS: Readonly<SafetyLimits> = {
  errorNudgeRounds: 5,
  errorAbortRounds: 10,
  replanRounds: 8,
  stallRounds: 5,
  repeatNudgeCalls: 3,
  repeatAbortCalls: 6,
  taskStateEveryRounds: 10,
};

/** What one round of calls looked like. */
export interface RoundReport {
  text: string;
  calls: readonly ToolCall[];
  failed: readonly boolean[];
  lastAction: string | undefined;
}

/** What the loop must do after a round: messages to put before the model, or end the turn. */
export interface SafetyVerdict {
  nudges: string[];
  abort?: string;
  reinjectTaskState: boolean;
}

const PLAN = /^\s*PLAN:/m;

/**
 * Watches the rounds of one turn for the ways agents run away: failing over and over, never planning,
 * repeating one action, calling one tool with the same arguments again and again. Error counters alone do
 * not catch the last: a call that succeeds with useless output fails nothing.
 */
export class SafetyMonitor {
  private rounds = 0;
  private errorRounds = 0;
  private roundsWithoutPlan = 0;
  private sameActionRounds = 0;
  private previousAction: string | undefined;
  private previousCall: string | undefined;
  private repeats = 0;

  constructor(private readonly limits: SafetyLimits = DEFAULT_SAFETY_LIMITS) {}

  afterRound(round: RoundReport): SafetyVerdict {
    const l = this.limits;
    const nudges: string[] = [];
    this.rounds++;

    this.errorRounds = round.failed.length > 0 && round.failed.every(Boolean) ? this.errorRounds + 1 : 0;
    if (this.errorRounds >= l.errorAbortRounds) {
      return this.abort(`the last ${this.errorRounds} rounds of tool calls all failed`);
    }
    if (this.errorRounds === l.errorNudgeRounds) {
      nudges.push(
        `The last ${this.errorRounds} rounds of tool calls all failed. Stop and try a different approach: read the errors again, check your assumptions, or ask the user.`,
      );
    }

    for (const call of round.calls) {
      const key = callKey(call);
      this.repeats = key === this.previousCall ? this.repeats + 1 : 1;
      this.previousCall = key;
      if (this.repeats >= l.repeatAbortCalls) {
        return this.abort(`${call.name} was called ${this.repeats} times in a row with the same arguments`);
      }
      if (this.repeats === l.repeatNudgeCalls) {
        nudges.push(
          `You have called ${call.name} with the same arguments ${this.repeats} times in a row. Its result will not change: use what it returned, or do something else.`,
        );
      }
    }

    this.roundsWithoutPlan = PLAN.test(round.text) ? 0 : this.roundsWithoutPlan + 1;
    if (this.roundsWithoutPlan >= l.replanRounds) {
      this.roundsWithoutPlan = 0;
      nudges.push(
        `${l.replanRounds} rounds without a plan. Before your next tool call, write a PLAN: block — a checklist of the steps that remain.`,
      );
    }

    const same = round.lastAction !== undefined && round.lastAction === this.previousAction;
    this.sameActionRounds = same ? this.sameActionRounds + 1 : 1;
    this.previousAction = round.lastAction;
    if (this.sameActionRounds >= l.stallRounds) {
      this.sameActionRounds = 0;
      nudges.push(
        `The last ${l.stallRounds} rounds did the same thing with the same result (${round.lastAction}). You are not making progress: change approach.`,
      );
    }

    return { nudges, reinjectTaskState: this.rounds % l.taskStateEveryRounds === 0 };
  }

  private abort(reason: string): SafetyVerdict {
    return { nudges: [], abort: reason, reinjectTaskState: false };
  }
}

/** The loop's safety monitor stopped a turn that was going nowhere (repeated failures or calls). */
export class SafetyStopError extends Error {
  override readonly name = "SafetyStopError";
  constructor(readonly reason: string) {
    super(`the turn was stopped: ${reason}`);
  }
}
