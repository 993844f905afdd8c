import type { AgentActivity, Outcome } from "@ollie/client";

/** Why a turn failed, from its outcome (`error: REASON`); undefined for every other ending, or none. */
export function failureOf(outcome: Outcome | undefined): string | undefined {
  return outcome?.status === "error" ? (outcome.error ?? "") : undefined;
}

/** How much of a failed turn's reason `ollie top`, `ollie status` and ollie_status show. */
export const REASON_CHARS = 60;

/** 950, 12.3k, 4.5M: token counts that fit a column. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** 0.4s, 12s, 3m05s, 2h10m. */
export function duration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${Math.floor(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * The running tools (or hook) and the first tool's argument, as sh's status line, top and an MCP client's
 * progress show them: `shell: sleep 1`, `shell,file_read`; empty when nothing runs.
 */
export function toolText(a: Pick<AgentActivity, "tools" | "arg">): string {
  const tools = a.tools.join(",");
  if (!tools) return "";
  return a.arg ? `${tools}: ${a.arg}` : tools;
}

/** What the agent does, in a few words: `thinking`, `calling shell: make`, `hook preTurn`, `compacting`. */
export function doingText(a: Pick<AgentActivity, "state" | "tools" | "arg">): string {
  return a.tools.length > 0 ? `${a.state} ${toolText(a)}` : a.state;
}
