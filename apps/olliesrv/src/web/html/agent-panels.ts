import type { Checkpoints } from "@ollie/client";
import { dollars } from "../../dollars.js";
import { doingText, shortCount } from "../../frontend/agent-text.js";
import { budgetText, spentShare } from "../../frontend/budget-text.js";
import type { AgentView } from "../live/agent-view.js";
import { safeMarkdown } from "../markdown/safe-markdown.js";
import { html, type SafeHtml } from "./html.js";
import { actionButton, formTokenField } from "./layout.js";

/** The ids of the agent page's parts the live stream replaces. */
export const PANEL = {
  status: "agent-status",
  usage: "agent-usage",
  plan: "agent-plan",
  processes: "agent-processes",
  checkpoints: "agent-checkpoints",
  queue: "agent-queue",
} as const;

/** How much of a waiting prompt the page shows. */
const QUEUED_CHARS = 300;

/** The prompts waiting for the running turn to end, oldest first. */
export function queuePanel(view: AgentView): SafeHtml {
  if (view.queue.length === 0) return html``;
  return html`<p>Waiting for this turn to end:</p><ol class="queue">${view.queue.map(
    (q) =>
      html`<li>${q.number === undefined ? "" : html`<span class="number">#${q.number}</span> `}${
        q.text.length > QUEUED_CHARS ? `${q.text.slice(0, QUEUED_CHARS)}…` : q.text
      }${q.from ? html` <span class="from">from ${q.from}</span>` : ""}</li>`,
  )}</ol>`;
}

/** State, turns, last outcome, profile and model. */
export function statusPanel(view: AgentView): SafeHtml {
  const state = view.activity ? doingText(view.activity) : "unknown";
  return html`<dl class="facts">
<div><dt>State</dt><dd class="state" data-state="${view.activity?.state ?? "unknown"}">${state}</dd></div>
<div><dt>Turns</dt><dd>${view.turns}</dd></div>
<div><dt>Last turn</dt><dd>${view.outcome?.text ?? "none yet"}</dd></div>
<div><dt>Profile</dt><dd>${view.cfg?.profile ?? ""}</dd></div>
<div><dt>Backend</dt><dd>${view.cfg?.backend ?? "default"}</dd></div>
<div><dt>Model</dt><dd>${view.cfg?.model ?? "the profile's"}</dd></div>
<div><dt>Directory</dt><dd class="path">${view.cfg?.cwd ?? view.session.cwd}</dd></div>
</dl>`;
}

/** Tokens and cost of the turn and the session, the context meter and the budget. */
export function usagePanel(view: AgentView): SafeHtml {
  const turn = view.usage?.turn;
  const session = view.usage?.session;
  const tokens = (u: typeof turn) => (u ? shortCount(u.inputTokens + u.outputTokens) : "0");
  const context = view.context;
  const budget = view.budget;
  const spent = spentShare(budget);
  return html`<dl class="facts">
<div><dt>This turn</dt><dd>${tokens(turn)} tokens, ${dollars(turn?.costUsd ?? 0)}</dd></div>
<div><dt>Session</dt><dd>${tokens(session)} tokens, ${dollars(view.cost?.session ?? session?.costUsd ?? 0)}</dd></div>
<div><dt>Context</dt><dd>${
    context && context.window > 0
      ? html`<meter min="0" max="1" low="0.6" high="0.85" optimum="0" value="${context.fraction.toFixed(3)}">${Math.round(context.fraction * 100)}%</meter> ${shortCount(context.tokens)} of ${shortCount(context.window)} (${Math.round(context.fraction * 100)}%)`
      : "unknown"
  }</dd></div>
<div><dt>Budget</dt><dd>${
    spent === undefined
      ? "none"
      : html`<meter min="0" max="1" low="0.5" high="0.8" optimum="0" value="${Math.min(spent, 1).toFixed(3)}">${Math.round(spent * 100)}%</meter> ${budgetText(budget)}`
  }</dd></div>
</dl>`;
}

/** The session's plan, as Markdown. */
export function planPanel(plan: string): SafeHtml {
  return plan.trim() === "" ? html`<p class="empty">No plan.</p>` : safeMarkdown(plan);
}

/** The checkpoints, newest first, each with what changed and a rewind. */
export function checkpointsPanel(
  checkpoints: Checkpoints | undefined,
  base: string,
  formToken: string,
): SafeHtml {
  if (!checkpoints) return html`<p class="empty">The checkpoints cannot be read.</p>`;
  if (checkpoints.unavailable) return html`<p class="empty">None kept: ${checkpoints.unavailable}</p>`;
  if (checkpoints.list.length === 0)
    return html`<p class="empty">None yet: one is made before a turn's first write.</p>`;
  const items = [...checkpoints.list].reverse().map(
    (
      c,
    ) => html`<li><details><summary>Checkpoint ${c.n}: ${c.kind === "turn" ? `turn ${c.turn}` : `before rewind to ${c.rewindTo}`}, ${c.time.toLocaleString("en-GB")} — ${c.files.length} file${c.files.length === 1 ? "" : "s"} changed</summary>
<ul class="files">${c.files.map((f) => html`<li><span class="change">${f.change}</span> <code>${f.path}</code>${f.added === undefined ? "" : ` +${f.added} -${f.deleted}`}</li>`)}</ul>
${c.noted.length > 0 ? html`<p>Not kept: ${c.noted.map((n) => html`<code>${n.path}</code> (${n.reason}) `)}</p>` : ""}
</details>
<form method="post" action="${base}/rewind" class="inline">${formTokenField(formToken)}<input type="hidden" name="n" value="${c.n}">
<label>Rewind <select name="what"><option value="files">files</option><option value="chat">conversation</option><option value="both">both</option></select></label>
<button type="submit" aria-label="Rewind to checkpoint ${c.n}">Rewind</button></form></li>`,
  );
  return html`<p>Directory <code>${checkpoints.directory}</code>${
    checkpoints.sharedWith.length > 0 ? `, shared with ${checkpoints.sharedWith.join(", ")}` : ""
  }.</p>
<ul class="checkpoints">${items}</ul>
${actionButton(`${base}/undo`, "Undo the last turn's changes", formToken)}`;
}
