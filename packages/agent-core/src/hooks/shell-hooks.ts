import type { AgentHooks, HookEvent, HookResult } from "./agent-hooks.js";
import { lastLines } from "./last-lines.js";
import { type HookRun, type HookRunOptions, runHookList } from "./run-hook.js";

/** The hooks of a profile: each event's command, or commands run in order. */
export type HookCommands = Partial<Record<HookEvent | "turnError", string | readonly string[]>>;

/** Events whose hooks guard something: a hook that cannot run blocks rather than allows. */
const FAIL_CLOSED: ReadonlySet<HookEvent> = new Set(["preTool"]);

/** Events whose refusal is given on standard error (stdout is what exit 0 would have added to the turn). */
const REASON_ON_STDERR: ReadonlySet<HookEvent> = new Set(["preTurn"]);

const listOf = (c: string | readonly string[] | undefined) =>
  c === undefined ? [] : typeof c === "string" ? [c] : c;

function describeRun(event: string, run: HookRun): string {
  return `${event} hook '${run.command}' ${run.problem ?? "failed"}${run.stderr.trim() ? `: ${lastLines(run.stderr)}` : ""}`;
}

/**
 * AgentHooks that run shell commands: JSON payload on stdin, OLLIE_* variables, everything a command
 * started killed when it exits or at the timeout. Exit 0 continues (stdout is the output), exit 2 blocks
 * (stdout, else stderr, is the reason; for preTurn stderr, else stdout), any other status is a warning and
 * execution continues; for an event that cannot block (`canBlock` false: the agent says which, postCompact
 * comes after the fact), exit 2 is a warning too and the next command runs. A hook that could not start,
 * crashed or timed out is a warning as well — except for preTool, which fails closed: the call is blocked
 * and the model is told the hook failed.
 */
export function shellHooks(commands: HookCommands, options: HookRunOptions): AgentHooks {
  return {
    handles: (event) => listOf(commands[event]).length > 0,
    async run(event, payload, signal, canBlock = true): Promise<HookResult> {
      const list = listOf(commands[event]);
      if (list.length === 0) return { action: "continue", output: "", warnings: [] };
      const runs = await runHookList(list, payload, { ...options, ...(signal && { signal }) }, canBlock);
      const warnings = runs
        .filter((r) => r.outcome === "warn" || r.outcome === "failed")
        .map((r) => describeRun(event, r));
      const blocked = runs.find((r) => r.outcome === "block");
      if (blocked) {
        const [first, second] = REASON_ON_STDERR.has(event)
          ? [blocked.stderr, blocked.stdout]
          : [blocked.stdout, blocked.stderr];
        return {
          action: "block",
          output: first.trim() || second.trim() || `the ${event} hook said no`,
          warnings,
        };
      }
      const failed = runs.find((r) => r.outcome === "failed");
      if (failed && FAIL_CLOSED.has(event)) {
        return {
          action: "block",
          output: `the ${event} hook could not decide (${failed.problem}), so the call was not run`,
          warnings,
        };
      }
      const output = runs
        .filter((r) => r.outcome === "ok")
        .map((r) => r.stdout.trim())
        .filter(Boolean)
        .join("\n");
      return { action: "continue", output, warnings };
    },
    async turnError(payload, signal) {
      const list = listOf(commands.turnError);
      if (list.length === 0) return false;
      const runs = await runHookList(list, payload, { ...options, ...(signal && { signal }) });
      return runs.length === list.length && runs.every((r) => r.outcome === "ok");
    },
  };
}
