import { ChatPieces } from "@ollie/client";
import { escapeHtml, type SafeHtml, trustedMarkup } from "../html/html.js";
import { type ChatChange, ChatHtml } from "./chat-html.js";

/** A call's result placeholder as ChatHtml writes it, for the tool named. */
const pending = (tool: string) =>
  `<pre class="result" data-tool="${escapeHtml(tool)}" data-pending="">(running)</pre>`;

/** What a page begins with: the transcript, the text not yet final after it, and where that begins. */
export interface Transcript {
  html: SafeHtml;
  /** The chat from `settled` on, as text: shown as it is until the live stream renders it. */
  tail: string;
  /** The byte position the live stream goes on from. */
  settled: number;
}

/**
 * A stretch of an agent's chat (text beginning at byte `offset`) as the transcript a page begins with.
 * `finished`: no turn runs, so the model's last block is whole and rendered as such.
 */
export function transcript(text: string, offset: number, finished = false): Transcript {
  const chat = new ChatHtml();
  const changes = chat.push(new ChatPieces(offset).push(text));
  if (finished) changes.push(...chat.flush());
  const bytes = Buffer.from(text);
  const tail = bytes.subarray(chat.settled - offset).toString("utf8");
  return { html: trustedMarkup(applied(changes)), tail, settled: chat.settled };
}

/** The changes made into one piece of markup: results put into their calls, as the page does. */
function applied(changes: readonly ChatChange[]): string {
  const parts: string[] = [];
  for (const change of changes) {
    if (change.op === "append") parts.push(change.html);
    else if (change.op === "result") {
      const placeholder = pending(change.tool);
      const at = parts.findIndex((p) => p.includes(placeholder));
      if (at >= 0)
        parts[at] = parts[at]!.replace(
          placeholder,
          `<pre class="result" data-tool="${escapeHtml(change.tool)}">${escapeHtml(change.text)}</pre>`,
        );
    }
  }
  return parts.join("");
}
