import { oneLine } from "../one-line.js";
import { dollars } from "../session/dollars.js";
import { failureOf, keyValues, REASON_CHARS, readUsage } from "./agent-files.js";
import type { SessionClient } from "./session-client.js";

/**
 * `ollie status [SESSION]`: a line for the session (every session when none is given), tab-separated: its
 * id, its main agent's state (`failed: REASON` for an idle agent whose last turn failed) and model, the
 * session's tokens and cost, and for a remote session the host its tools run on and whether olliesrv is
 * connected to it.
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
  let lines = "";
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
