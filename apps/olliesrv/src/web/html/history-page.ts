import type { HistoryMessage } from "@ollie/client";
import { promptBlock } from "../markdown/chat-html.js";
import { safeMarkdown } from "../markdown/safe-markdown.js";
import { html, type SafeHtml } from "./html.js";

/** An agent's history as the model reads it: every prompt, reply, call and result in full. */
export function historyPage(title: string, messages: HistoryMessage[]): SafeHtml {
  return html`<h1>${title}: history</h1>
<p>What the model reads, after any compaction: the conversation page keeps the whole chat.</p>
<ol class="history">${messages.map((m) => html`<li class="${m.role}">${message(m)}</li>`)}</ol>`;
}

function message(m: HistoryMessage): SafeHtml {
  switch (m.role) {
    case "system":
      return html`<details><summary>System prompt</summary><pre>${m.content}</pre></details>`;
    case "user":
      return promptBlock(m.content);
    case "assistant":
      return html`${(m.reasoning ?? []).map((r) => html`<details class="reasoning"><summary>Reasoning</summary><pre>${r.text}</pre></details>`)}
${m.content ? safeMarkdown(m.content) : ""}
${(m.toolCalls ?? []).map((c) => html`<p class="call"><span class="mark" aria-hidden="true">→</span> <span class="tool">${c.name}</span> <code>${JSON.stringify(c.arguments)}</code></p>`)}`;
    case "tool":
      return html`<details class="call" open><summary><span class="mark" aria-hidden="true">←</span> <span class="tool">${m.name}</span>${m.isError ? " (error)" : ""}</summary><pre class="result">${m.content}</pre></details>`;
  }
}
