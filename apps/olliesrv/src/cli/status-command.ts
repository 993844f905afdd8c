import { oneLine } from "../one-line.js";
import { dollars } from "../session/dollars.js";
import { failureOf, keyValues, REASON_CHARS, readUsage } from "./agent-files.js";
import type { SessionClient } from "./session-client.js";

/**
 * `ollie status [SESSION]`: a line for the session (every session when none is given), tab-separated: its
 * id, its main agent's state (`failed: REASON` for an idle agent whose last turn failed) and model, the
 * session's tokens and cost, and for a remote session the host its tools run on and whether olliesrv is
 * connected to it. Above them, toolsrv's line (see toolsrvLine): always for every session, and for one
 * session while toolsrv is not up.
 */
export async function statusCommand(client: SessionClient, session: string | undefined): Promise<number> {
  process.stdout.write(await statusLines(client, session));
  return 0;
}

/** What `ollie status [SESSION]` prints (see statusCommand). */
export async function statusLines(client: SessionClient, session: string | undefined): Promise<string> {
  const ids = session
    ? [session]
    : (await client.read("session/idx"))
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t", 1)[0]!);
  const toolsrv = toolsrvLine(await client.read("stats"));
  let lines = toolsrv && (session === undefined || !toolsrv.up) ? `${toolsrv.line}\n` : "";
  for (const id of ids) {
    const agent = `session/${id}/agent/main`;
    const [cfg, outcome, usage] = await Promise.all([
      client.read(`${agent}/cfg`).then(keyValues),
      client.read(`${agent}/outcome`),
      readUsage(client, agent).then((u) => u.session),
    ]);
    const failure = cfg.state === "idle" ? failureOf(outcome) : undefined;
    const state = failure === undefined ? cfg.state : `failed: ${oneLine(failure, REASON_CHARS)}`;
    const tokens = `${usage?.inputTokens ?? 0} in / ${usage?.outputTokens ?? 0} out`;
    const remote = cfg.remote ? `\ttools on ${cfg.remote} (${cfg.remote_state})` : "";
    lines += `${id}\t${state}\t${cfg.model || "(profile default)"}\t${tokens}\t${dollars(usage?.costUsd ?? 0)} session${remote}\n`;
  }
  return lines;
}

/**
 * The toolsrv olliesrv started, from `stats`, tab-separated: `toolsrv`, its state and since when, then its
 * pid (up), how many times it was restarted, how the last one ended and when the next start is (down).
 * Undefined for a toolsrv olliesrv did not start (`--toolsrv`), which it does not watch.
 */
export function toolsrvLine(stats: string): { up: boolean; line: string } | undefined {
  const v = new Map<string, string>();
  for (const line of stats.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) v.set(line.slice(0, space), line.slice(space + 1));
  }
  const state = v.get("toolsrv");
  if (state === undefined || state === "external") return undefined;
  const fields = [
    "toolsrv",
    `${state} since ${v.get("toolsrv-since")}`,
    ...(v.has("toolsrv-pid") ? [`pid ${v.get("toolsrv-pid")}`] : []),
    `${v.get("toolsrv-restarts") ?? 0} restarts`,
    ...(v.has("toolsrv-last-exit") ? [`last exit: ${v.get("toolsrv-last-exit")}`] : []),
    ...(v.has("toolsrv-next-start") ? [`next start ${v.get("toolsrv-next-start")}`] : []),
  ];
  return { up: state === "up", line: fields.join("\t") };
}
