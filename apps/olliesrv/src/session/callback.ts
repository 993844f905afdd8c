import type { TurnOutcome } from "@ollie/agent-core";
import type { SpanContext } from "@opentelemetry/api";
import type { Peers } from "./slot-context.js";
import { callbackTrace } from "./spawn-trace.js";

/** The tools whose `path` argument names a file the turn made or changed. */
const WRITING_TOOLS = new Set(["file_write", "file_edit"]);

/** Whether a tool call writes a file, and which (as the call named it). */
export function artifactOf(tool: string, args: Record<string, unknown>): string | undefined {
  return WRITING_TOOLS.has(tool) && typeof args.path === "string" ? args.path : undefined;
}

/**
 * The message a child sends its parent when a turn the parent asked for ends:
 *
 *     [from=CHILD]
 *     STATUS: done|error
 *     SUMMARY: the child's last reply (or what went wrong), and how it ended when it ended short
 *     ARTIFACTS: the files its tools wrote, comma-separated (or none)
 */
export function callbackText(from: string, outcome: TurnOutcome, artifacts: readonly string[]): string {
  const ok = outcome.status === "done" || outcome.status === "maxsteps";
  const reply = outcome.reply?.content.trim() ?? "";
  const problem = problemOf(outcome);
  let summary = ok ? reply || "(no reply)" : `${outcome.status}${problem ? `: ${problem}` : ""}`;
  if (outcome.stop) summary += ` (${outcome.stop.message})`;
  return [
    `[from=${from}]`,
    `STATUS: ${ok ? "done" : "error"}`,
    `SUMMARY: ${summary}`,
    `ARTIFACTS: ${artifacts.length > 0 ? artifacts.join(", ") : "none"}`,
  ].join("\n");
}

/** What went wrong in a turn that did not end well, in words ("" when nothing is to be said). */
function problemOf(outcome: TurnOutcome): string {
  switch (outcome.status) {
    case "error":
    case "handled":
      return outcome.error.message;
    case "blocked":
      return `the preTurn hook blocked the turn: ${outcome.reason}`;
    case "budget":
      return `the budget stopped the turn: ${outcome.reason}`;
    default:
      return "";
  }
}

/**
 * A prompt as its agent sees it: one written by another principal begins with `[from=UNAME]`, its proven
 * sender, so a claim inside the text cannot pass for it. The owner's prompts are left as they are.
 */
export function stampSender(text: string, from: string, owner: string): string {
  if (from === owner) return text;
  const stamp = `[from=${from}]`;
  return text.startsWith(`${stamp}\n`) ? text : `${stamp}\n${text}`;
}

/** A callback: the turn that ended, reported to the agent that asked for it. */
export interface TurnReport {
  parent: string;
  /** The reporting agent, whose prompt the callback is. */
  from: string;
  outcome: TurnOutcome;
  /** The reported turn's span, which the callback's turn links to (when recorded). */
  turn: SpanContext | undefined;
}

/**
 * Delivers a callback (see callbackText) to its parent; a failure is told to `note`, for the reporting
 * agent's chat.
 */
export async function reportTurn(
  peers: Peers,
  report: TurnReport,
  artifacts: readonly string[],
  note: (line: string) => void,
): Promise<void> {
  const { parent, from, outcome, turn } = report;
  const text = callbackText(from, outcome, artifacts);
  await peers.deliver(parent, text, from, callbackTrace(turn)).catch((error: unknown) => {
    note(`! could not report to ${parent}: ${(error as Error).message}`);
  });
}
