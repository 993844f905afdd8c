import { dollars } from "../session/dollars.js";
import { keyValues, readUsage } from "./agent-files.js";
import type { SessionClient } from "./session-client.js";

/**
 * `ollie status [SESSION]`: a line for the session (every session when none is given), tab-separated: its
 * id, its main agent's state and model, the session's tokens and cost, and for a remote session the host its
 * tools run on and whether olliesrv is connected to it.
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
    const cfg = keyValues(await client.read(`${agent}/cfg`));
    const usage = (await readUsage(client, agent)).session;
    const tokens = `${usage?.inputTokens ?? 0} in / ${usage?.outputTokens ?? 0} out`;
    const remote = cfg.remote ? `\ttools on ${cfg.remote} (${cfg.remote_state})` : "";
    lines += `${id}\t${cfg.state}\t${cfg.model || "(profile default)"}\t${tokens}\t${dollars(usage?.costUsd ?? 0)} session${remote}\n`;
  }
  return lines;
}
