import type { OllieClient } from "@ollie/client";
import { oneLine } from "../one-line.js";

/** What `ollie approve`, `ollie deny` and `ollie bypass` were asked to do. */
export type BypassInvocation =
  | { command: "approve"; id: string }
  | { command: "deny"; id: string; reason: string }
  | { command: "bypass" };

/**
 * `ollie bypass`: the requests waiting for a decision, one a line — id, agent, operation, command, reason,
 * tab-separated — or a line saying there are none (on standard error, so the output stays a list).
 */
export async function pendingCommand(client: OllieClient): Promise<number> {
  const pending = await client.bypass.pending();
  if (pending.length === 0) process.stderr.write("no bypass request is waiting\n");
  for (const r of pending)
    process.stdout.write(`${r.number}\t${r.agent}\t${r.operation}\t${r.command}\t${r.reason}\n`);
  return 0;
}

/**
 * `ollie approve ID` and `ollie deny ID [REASON]`: the owner's decision (which only the owner may make);
 * then how the request stands, e.g. `bypass request 3: approved by glenda`.
 */
export async function decideCommand(
  client: OllieClient,
  invocation: Extract<BypassInvocation, { command: "approve" | "deny" }>,
): Promise<number> {
  const { id } = invocation;
  const request = client.bypass.request(Number(id));
  if (invocation.command === "approve") await request.approve();
  else await request.deny(oneLine(invocation.reason));
  const decision = await request.decision();
  process.stdout.write(`bypass request ${id}: ${decision}\n`);
  return 0;
}
