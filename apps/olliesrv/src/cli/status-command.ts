import type { OllieClient } from "@ollie/client";
import { failureOf, REASON_CHARS } from "../frontend/agent-text.js";
import { oneLine } from "../one-line.js";
import { dollars } from "../session/dollars.js";

/**
 * `ollie status [SESSION]`: a line for the session (every session when none is given), tab-separated: its
 * id, its main agent's state (`failed: REASON` for an idle agent whose last turn failed) and model, the
 * session's tokens and cost, and for a remote session the host its tools run on and whether olliesrv is
 * connected to it.
 */
export async function statusCommand(client: OllieClient, session: string | undefined): Promise<number> {
  process.stdout.write(await statusLines(client, session));
  return 0;
}

/** What `ollie status [SESSION]` prints (see statusCommand). */
export async function statusLines(client: OllieClient, session: string | undefined): Promise<string> {
  const ids = session ? [session] : (await client.sessions()).map((s) => s.id);
  let lines = "";
  for (const id of ids) {
    const agent = client.session(id).agent();
    const [cfg, outcome, usage] = await Promise.all([
      agent.cfg(),
      agent.outcome(),
      agent.usage().then((u) => u.session),
    ]);
    const failure = cfg.state === "idle" ? failureOf(outcome) : undefined;
    const state = failure === undefined ? cfg.state : `failed: ${oneLine(failure, REASON_CHARS)}`;
    const tokens = `${usage?.inputTokens ?? 0} in / ${usage?.outputTokens ?? 0} out`;
    const remote = cfg.remote ? `\ttools on ${cfg.remote.host} (${cfg.remote.state})` : "";
    lines += `${id}\t${state}\t${cfg.model || "(profile default)"}\t${tokens}\t${dollars(usage?.costUsd ?? 0)} session${remote}\n`;
  }
  return lines;
}
