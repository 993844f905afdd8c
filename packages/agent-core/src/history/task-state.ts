import type { ToolCall } from "@ollie/backends";

/**
 * The structured overlay of what the agent is doing, kept beside the history: re-injected every few rounds
 * so a long turn does not lose its thread, and (with compaction) the part of the past that is never lost.
 */
export interface TaskState {
  objective: string;
  /** The plan step in progress: the session plan file's next unchecked item, else one from a PLAN: block. */
  planStep?: string;
  constraints: string[];
  /** The last tool call and the start of its result. */
  lastAction?: string;
  /** The last line of the model's latest text: what it said it would do next. */
  nextDecision?: string;
}

export function emptyTaskState(): TaskState {
  return { objective: "", constraints: [] };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The one-line form of a call and its result that `lastAction` holds, and stall detection compares. */
export function describeAction(call: ToolCall, result: string): string {
  const args = clip(JSON.stringify(call.arguments), 160);
  const firstLine = result.split("\n", 1)[0] ?? "";
  return `${call.name}(${args}) → ${clip(firstLine, 160)}`;
}

/** The first unchecked `- [ ]` item of a PLAN: block in the model's text. */
export function planStepIn(text: string): string | undefined {
  const at = text.search(/^\s*PLAN:/m);
  if (at < 0) return undefined;
  const item = /^\s*[-*]\s+\[ \]\s+(.+)$/m.exec(text.slice(at));
  return item?.[1]?.trim();
}

/** What a round of calls tells about the task. */
export function inferTaskState(
  state: TaskState,
  round: { text: string; lastCall?: ToolCall; lastResult?: string; planFileStep?: string },
): TaskState {
  const next: TaskState = { ...state };
  if (round.lastCall) next.lastAction = describeAction(round.lastCall, round.lastResult ?? "");
  const step = round.planFileStep ?? planStepIn(round.text);
  if (step) next.planStep = step;
  const lines = round.text.split("\n").filter((l) => l.trim() !== "");
  const last = lines.at(-1)?.trim();
  if (last) next.nextDecision = clip(last, 200);
  return next;
}

/** The task state as the model reads it when it is re-injected. */
export function renderTaskState(state: TaskState): string {
  const lines = ["[task state]", `Objective: ${state.objective || "(none given)"}`];
  if (state.planStep) lines.push(`Plan step: ${state.planStep}`);
  if (state.constraints.length > 0) lines.push(`Constraints: ${state.constraints.join("; ")}`);
  if (state.lastAction) lines.push(`Last action: ${state.lastAction}`);
  if (state.nextDecision) lines.push(`Next decision: ${state.nextDecision}`);
  return lines.join("\n");
}
