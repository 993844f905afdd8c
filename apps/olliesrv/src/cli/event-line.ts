import type { AgentEventRecord, OllieEvent, SessionEventRecord } from "@ollie/client";
import { oneLine } from "../one-line.js";

/**
 * An event as one short line for an observer's prompt: the time, the agent, what happened, its text cut
 * short. A prompt `observer` (a uname) wrote itself is marked as its own, so that it does not answer itself.
 */
export function eventLine(event: OllieEvent, observer: string): string {
  const at = event.time ? `${event.time.slice(11, 19)} ` : "";
  switch (event.kind) {
    case "agent":
      return `${at}${agentLine(event, observer)}`;
    case "dropped":
      return `${at}(${event.count} events were lost: this observer fell behind)`;
    case "other":
      return `${at}${event.topic} ${oneLine(JSON.stringify(event.fields), 240)}`;
    default:
      return `${at}${event.topic} ${fields(event)}`;
  }
}

function agentLine(e: AgentEventRecord, observer: string): string {
  const { agent } = e;
  switch (e.type) {
    case "user": {
      const own = `[from=${observer}]\n`;
      if (e.text.startsWith(own))
        return `${agent} ← your own message: ${oneLine(e.text.slice(own.length), 160)}`;
      const sender = /^\[from=([^\]\n]+)\]\n/.exec(e.text);
      if (sender)
        return `${agent} ← prompt from ${sender[1]}: ${oneLine(e.text.slice(sender[0].length), 240)}`;
      const how = e.from === "inject" ? "injected" : e.from === "ollie" ? "note from the loop" : "prompt";
      return `${agent} ← ${how}: ${oneLine(e.text, 240)}`;
    }
    case "tool": {
      const outcome = e.result.isError ? "FAILED" : "ok";
      return `${agent} ${e.call.name} ${oneLine(JSON.stringify(e.call.arguments ?? {}), 160)} → ${outcome}: ${oneLine(String(e.result.content ?? ""), 200)}`;
    }
    case "call":
      return `${agent} calls ${e.call.name} ${oneLine(JSON.stringify(e.call.arguments ?? {}), 160)}`;
    case "turn": {
      const o = e.outcome;
      const why = o.error ?? o.reason;
      const error = why === undefined ? "" : `: ${oneLine(String(why), 200)}`;
      const reply = o.reply?.content ? `; last reply: ${oneLine(String(o.reply.content), 160)}` : "";
      return `${agent} turn ended: ${o.status} after ${o.steps ?? 0} step(s)${error}${reply}`;
    }
    case "error":
    case "info":
      return `${agent} ${e.type}: ${oneLine(e.message, 240)}`;
    case "maxsteps":
      return `${agent} reached its step limit (${e.steps} steps)`;
    case "retry":
    case "limitretry":
      return `${agent} ${e.type === "retry" ? "request failed" : "rate limited"}, attempt ${e.attempt} of ${e.maxAttempts}: ${oneLine(e.message, 160)}`;
    case "state":
      return `${agent} is ${e.state}`;
    default:
      return `${agent} ${e.type} ${fields(e)}`;
  }
}

/** The event's own fields, as compact JSON on one line. */
function fields(event: AgentEventRecord | SessionEventRecord): string {
  const { topic: _t, seq: _s, time: _m, kind: _k, type: _y, ...rest } = event;
  const own: Record<string, unknown> = { ...rest };
  // An agent's record names its agent, which the line says already.
  if (event.kind === "agent") delete own.agent;
  return oneLine(JSON.stringify(own), 240);
}
