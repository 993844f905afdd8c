import { ReplyFormatError } from "../errors.js";
import type { AgentEventBody, OllieEvent, SessionEventBody } from "./event-types.js";

const AGENT_TYPES: ReadonlySet<string> = new Set<AgentEventBody["type"]>([
  "user",
  "assistant",
  "reasoning",
  "call",
  "tool",
  "usage",
  "state",
  "retry",
  "limitretry",
  "maxsteps",
  "compaction",
  "error",
  "info",
  "stopreason",
  "discard",
  "turn",
  "note",
  "queue",
  "procs",
]);

const SESSION_TYPES: ReadonlySet<string> = new Set<SessionEventBody["type"]>([
  "rename",
  "cd",
  "remote",
  "plan",
  "fork",
  "budget",
  "limits",
  "kill",
]);

/** `agent.NAME.TYPE`: agent names hold no dot. */
const AGENT_TOPIC = /^agent\.([^.]+)\.([^.]+)$/;
const SESSION_TOPIC = /^session\.([^.]+)$/;

/**
 * One line of a session's `events` file as a record (see OllieEvent). A line that is not an event — not a
 * JSON object with a topic, a number and a time — is a ReplyFormatError about `path`.
 */
export function parseEvent(line: string, path: string): OllieEvent {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new ReplyFormatError(path, line, "not a JSON event");
  }
  if (typeof json !== "object" || json === null || typeof (json as { topic?: unknown }).topic !== "string")
    throw new ReplyFormatError(path, line, "not an event");
  const { topic, seq, time, ...fields } = json as Record<string, unknown> & { topic: string };
  if (topic === "events.dropped")
    return { kind: "dropped", topic, time: String(time ?? ""), count: Number(fields.count ?? 0) };
  if (typeof seq !== "number" || typeof time !== "string")
    throw new ReplyFormatError(path, line, "an event without its number and time");
  const stamp = { topic, seq, time };
  const agent = AGENT_TOPIC.exec(topic);
  // The record's own keys come last: a field can never pass for its kind, agent or type.
  if (agent && AGENT_TYPES.has(agent[2]!))
    return { ...fields, ...stamp, kind: "agent", agent: agent[1]!, type: agent[2] } as OllieEvent;
  const session = SESSION_TOPIC.exec(topic);
  if (session && SESSION_TYPES.has(session[1]!))
    return { ...fields, ...stamp, kind: "session", type: session[1] } as OllieEvent;
  return { ...stamp, kind: "other", fields };
}
