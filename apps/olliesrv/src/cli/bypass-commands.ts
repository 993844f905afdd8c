import { oneLine } from "../one-line.js";
import type { SessionClient } from "./session-client.js";

/** What `ollie approve`, `ollie deny` and `ollie bypass` were asked to do. */
export type BypassInvocation =
  | { command: "approve"; id: string }
  | { command: "deny"; id: string; reason: string }
  | { command: "bypass" };

/**
 * `ollie bypass`: the requests waiting for a decision, one a line — id, agent, operation, command, reason,
 * tab-separated — or a line saying there are none (on standard error, so the output stays a list).
 */
export async function pendingCommand(client: SessionClient): Promise<number> {
  const pending = await client.read("bypass/pending");
  if (pending === "") process.stderr.write("no bypass request is waiting\n");
  process.stdout.write(pending);
  return 0;
}

/**
 * `ollie approve ID` and `ollie deny ID [REASON]`: the owner's decision, written to `bypass/ID/ctl` (which
 * only the owner may write); then how the request stands, e.g. `bypass request 3: approved by glenda`.
 */
export async function decideCommand(
  client: SessionClient,
  invocation: Extract<BypassInvocation, { command: "approve" | "deny" }>,
): Promise<number> {
  const { id } = invocation;
  const line = invocation.command === "approve" ? "approve" : oneLine(`deny ${invocation.reason}`);
  await client.write(`bypass/${id}/ctl`, `${line}\n`);
  const decision = (await client.read(`bypass/${id}/decision`)).trim();
  process.stdout.write(`bypass request ${id}: ${decision}\n`);
  return 0;
}
