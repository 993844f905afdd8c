import { oneLine } from "../one-line.js";

/** A line of a session's `events` file, parsed (see NAMESPACE.md's Events). */
export interface SessionEvent {
  topic: string;
  time?: string;
  [field: string]: unknown;
}

type Call = { name?: string; arguments?: unknown };
type Result = { content?: unknown; isError?: boolean };
type Outcome = { status?: string; steps?: number; error?: unknown; reply?: { content?: unknown } };

/**
 * An event as one short line for an observer's prompt: the time, the agent, what happened, its text cut
 * short. A prompt `observer` (a uname) wrote itself is marked as its own, so that it does not answer itself.
 */
export function eventLine(event: SessionEvent, observer: string): string {
  const at = typeof event.time === "string" ? `${event.time.slice(11, 19)} ` : "";
  const [, agent, type] = /^agent\.([^.]+)\.(.+)$/.exec(event.topic) ?? [];
  return `${at}${agent === undefined ? other(event) : agentLine(agent, type!, event, observer)}`;
}

function agentLine(agent: string, type: string, e: SessionEvent, observer: string): string {
  switch (type) {
    case "user": {
      const text = String(e.text ?? "");
      const own = `[from=${observer}]\n`;
      if (text.startsWith(own)) return `${agent} ← your own message: ${oneLine(text.slice(own.length), 160)}`;
      const sender = /^\[from=([^\]\n]+)\]\n/.exec(text);
      if (sender) return `${agent} ← prompt from ${sender[1]}: ${oneLine(text.slice(sender[0].length), 240)}`;
      const how = e.from === "inject" ? "injected" : e.from === "ollie" ? "note from the loop" : "prompt";
      return `${agent} ← ${how}: ${oneLine(text, 240)}`;
    }
    case "tool": {
      const call = (e.call ?? {}) as Call;
      const result = (e.result ?? {}) as Result;
      const outcome = result.isError ? "FAILED" : "ok";
      return `${agent} ${call.name ?? "?"} ${oneLine(JSON.stringify(call.arguments ?? {}), 160)} → ${outcome}: ${oneLine(String(result.content ?? ""), 200)}`;
    }
    case "call": {
      const call = (e.call ?? {}) as Call;
      return `${agent} calls ${call.name ?? "?"} ${oneLine(JSON.stringify(call.arguments ?? {}), 160)}`;
    }
    case "turn": {
      const o = (e.outcome ?? {}) as Outcome;
      const error = o.error === undefined ? "" : `: ${oneLine(String(o.error), 200)}`;
      const reply = o.reply?.content ? `; last reply: ${oneLine(String(o.reply.content), 160)}` : "";
      return `${agent} turn ended: ${o.status ?? "?"} after ${o.steps ?? 0} step(s)${error}${reply}`;
    }
    case "error":
    case "info":
      return `${agent} ${type}: ${oneLine(String(e.message ?? ""), 240)}`;
    case "maxsteps":
      return `${agent} reached its step limit (${e.steps} steps)`;
    case "retry":
    case "limitretry":
      return `${agent} ${type === "retry" ? "request failed" : "rate limited"}, attempt ${e.attempt} of ${e.maxAttempts}: ${oneLine(String(e.message ?? ""), 160)}`;
    case "state":
      return `${agent} is ${e.state}`;
    default:
      return `${agent} ${type} ${fields(e)}`;
  }
}

function other(event: SessionEvent): string {
  if (event.topic === "events.dropped") return `(${event.count} events were lost: this observer fell behind)`;
  return `${event.topic} ${fields(event)}`;
}

/** The event's own fields, as compact JSON on one line. */
function fields(event: SessionEvent): string {
  const { topic: _t, seq: _s, time: _m, ...rest } = event;
  return oneLine(JSON.stringify(rest), 240);
}
