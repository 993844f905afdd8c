import type { AgentEvent } from "@ollie/agent-core";
import { NUDGE_PREFIX } from "@ollie/agent-core/sessions";
import type { Message } from "@ollie/backends";
import { AppendBuffer } from "@ollie/virtfs";
import { shorten } from "../one-line.js";

/**
 * The conversation as people read it, one stream per agent. Prompts start with `» `, the model's text
 * follows as it streams, tool calls are `→ name {args}` and their results `← name: first line (n lines)`,
 * the loop's own notes start with `· `, failures and replies that ended short (the output limit, a refusal,
 * a filter, an empty reply) with `! `, and retries with `~ `. The same text comes from
 * a restored history as from the live events.
 */
export class ChatLog {
  readonly stream = new AppendBuffer({ retain: 8 * 1024 * 1024 });
  private atLineStart = true;
  private blankBefore = true;

  /**
   * Writes a restored conversation as it is: the history the agent restored from it has (repaired when the
   * session was read, so a call that was running and a turn that was cut off show as interrupted, once).
   */
  replay(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.role === "user")
        this.block(
          m.content.startsWith(NUDGE_PREFIX) ? `· ${m.content.slice(NUDGE_PREFIX.length)}` : `» ${m.content}`,
        );
      else if (m.role === "assistant") {
        if (m.content) this.text(m.content);
        for (const c of m.toolCalls ?? []) this.line(callLine(c.name, c.arguments));
      } else if (m.role === "tool") this.line(resultLine(m.name, m.content, m.isError === true));
    }
    this.endTurn();
  }

  /** Follows a live agent. */
  event(e: AgentEvent): void {
    switch (e.type) {
      case "user":
        this.block(
          e.from === "ollie" ? `· ${e.text}` : e.from === "inject" ? `» (injected) ${e.text}` : `» ${e.text}`,
        );
        break;
      case "assistant":
        this.text(e.delta);
        break;
      case "call":
        this.line(callLine(e.call.name, e.call.arguments));
        break;
      case "tool":
        this.line(resultLine(e.call.name, e.result.content, e.result.isError === true));
        break;
      case "retry":
      case "limitretry":
        this.line(
          `~ retrying in ${seconds(e.delayMs)} s, attempt ${e.attempt + 1} of ${e.maxAttempts}: ${e.message}`,
        );
        break;
      case "discard":
        this.line("~ the retry's reply differs from the partial one above, which it replaces:");
        break;
      case "stopreason":
        this.line(`! ${e.message}`);
        break;
      case "compaction":
        this.line(`~ compacted: ${e.tokensBefore} → ${e.tokensAfter} tokens`);
        break;
      case "error":
        this.line(`! ${e.message}`);
        break;
      case "turn":
        if (e.outcome.status === "budget") this.line(`! budget: ${e.outcome.reason}`);
        this.endTurn();
        break;
    }
  }

  /** Told of each line of the daemon's own (the session's `agent.NAME.note` events). */
  onNote: ((line: string) => void) | undefined;

  /** A line of the daemon's own. */
  note(t: string): void {
    this.line(t);
    this.onNote?.(t);
  }

  private text(t: string): void {
    // A killed agent's log has ended; what its last events say is not for anyone any more.
    if (t === "" || this.stream.closed) return;
    this.stream.append(t);
    this.atLineStart = t.endsWith("\n");
    this.blankBefore = t.endsWith("\n\n");
  }

  private line(t: string): void {
    if (!this.atLineStart) this.text("\n");
    this.text(`${t}\n`);
  }

  /** A paragraph of its own. */
  private block(t: string): void {
    if (!this.atLineStart) this.text("\n");
    if (!this.blankBefore) this.text("\n");
    this.text(`${t}\n\n`);
  }

  private endTurn(): void {
    if (!this.atLineStart) this.text("\n");
    if (!this.blankBefore) this.text("\n");
  }
}

/** A wait in seconds as people say it: `2`, `0.3`, `1.5`. */
function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function callLine(name: string, args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return `→ ${name} ${shorten(json, 300)}`;
}

function resultLine(name: string, content: string, isError: boolean): string {
  const lines = content.split("\n").filter((l) => l.trim() !== "");
  const first = (lines[0] ?? "").slice(0, 200);
  return `← ${name}${isError ? " failed" : ""}: ${first}${lines.length > 1 ? ` (${lines.length} lines)` : ""}`;
}
