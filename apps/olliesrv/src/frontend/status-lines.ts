import type { OllieClient, ToolsrvStatus } from "@ollie/client";
import { dollars } from "../dollars.js";
import { oneLine } from "../one-line.js";
import { failureOf, REASON_CHARS } from "./agent-text.js";
import { budgetText } from "./budget-text.js";

/**
 * What `ollie status [SESSION]` prints, and `ollie mcp`'s ollie_status answers: a line for the session (every
 * session when none is given), tab-separated: its id, its main agent's state (`failed: REASON` for an idle
 * agent whose last turn failed), agent profile and model, the session's tokens and cost, its budget when it has one
 * (`budget $0.4100 of $2.0000, 1200 of 50000 tokens`), and for a remote session the host
 * its tools run on and whether olliesrv is connected to it. Above them, toolsrv's line (see toolsrvLine):
 * always for every session, and for one session while toolsrv is not up.
 */
export async function statusLines(client: OllieClient, session: string | undefined): Promise<string> {
  const ids = session ? [session] : (await client.sessions()).map((s) => s.id);
  const toolsrv = await client.toolsrv();
  let lines = toolsrv && (session === undefined || toolsrv.state !== "up") ? `${toolsrvLine(toolsrv)}\n` : "";
  for (const id of ids) {
    const agent = client.session(id).agent();
    const [cfg, outcome, usage, budget] = await Promise.all([
      agent.cfg(),
      agent.outcome(),
      agent.usage().then((u) => u.session),
      client.session(id).budget(),
    ]);
    const failure = cfg.state === "idle" ? failureOf(outcome) : undefined;
    const state = failure === undefined ? cfg.state : `failed: ${oneLine(failure, REASON_CHARS)}`;
    const tokens = `${usage?.inputTokens ?? 0} in / ${usage?.outputTokens ?? 0} out`;
    const remote = cfg.remote ? `\ttools on ${cfg.remote.host} (${cfg.remote.state})` : "";
    const limit = budgetText(budget);
    lines += `${id}\t${state}\t${cfg.profile}\t${cfg.model || "(the backend's default)"}\t${tokens}\t${dollars(usage?.costUsd ?? 0)} session${limit ? `\t${limit}` : ""}${remote}\n`;
  }
  return lines;
}

/**
 * The toolsrv olliesrv started, tab-separated: `toolsrv`, its state and since when, then its pid (up), how
 * many times it was restarted, how the last one ended and when the next start is (down).
 */
export function toolsrvLine(toolsrv: ToolsrvStatus): string {
  return [
    "toolsrv",
    `${toolsrv.state} since ${toolsrv.since}`,
    ...(toolsrv.pid === undefined ? [] : [`pid ${toolsrv.pid}`]),
    `${toolsrv.restarts} restarts`,
    ...(toolsrv.lastExit === undefined ? [] : [`last exit: ${toolsrv.lastExit}`]),
    ...(toolsrv.nextStart === undefined ? [] : [`next start ${toolsrv.nextStart}`]),
  ].join("\t");
}
