import type { Checkpoints, ModelInfo, ProfileInfo } from "@ollie/client";
import type { AgentView } from "../live/agent-view.js";
import { checkpointsPanel, PANEL, planPanel, queuePanel, statusPanel, usagePanel } from "./agent-panels.js";
import { html, type SafeHtml } from "./html.js";
import { actionButton, formTokenField } from "./layout.js";
import { agentPath } from "./session-rows.js";

export interface AgentPage {
  view: AgentView;
  /** The transcript so far, and the model's text still streaming at its end. */
  transcript: SafeHtml;
  tail: string;
  plan: string;
  checkpoints: Checkpoints | undefined;
  processes: SafeHtml;
  models: ModelInfo[];
  profiles: ProfileInfo[];
  formToken: string;
}

/** An agent: its conversation as it streams, a prompt box, and its state, spending and checkpoints. */
export function agentPage(page: AgentPage): SafeHtml {
  const { view, formToken } = page;
  const base = agentPath(view.session.id, view.agent);
  return html`<h1><a href="/">Sessions</a> / ${view.session.name} / ${view.agent}</h1>
<div class="agent">
<section class="conversation" aria-labelledby="conversation">
<h2 id="conversation">Conversation</h2>
<div id="chat" class="chat">${page.transcript}</div>
<div id="chat-tail" class="tail">${page.tail}</div>
<form method="post" action="${base}/prompt" class="prompt" id="prompt-form">${formTokenField(formToken)}
<label for="prompt-text">Prompt</label>
<p class="hint" id="prompt-hint"><kbd>/</kbd> goes here, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> sends; a prompt sent while a turn runs waits for it</p>
<textarea id="prompt-text" name="text" rows="3" required aria-describedby="prompt-hint"></textarea>
<div class="buttons"><button type="submit">Send</button></div>
</form>
<div id="${PANEL.queue}" class="queued">${queuePanel(view)}</div>
${actionButton(`${base}/stop`, "Stop the turn", formToken, { danger: true })}
<p><a href="${base}/context">The whole history, with every tool result in full</a></p>
</section>
<aside class="panels">
<section aria-labelledby="status-h"><h2 id="status-h">Status</h2><div id="${PANEL.status}">${statusPanel(view)}</div>
${settingsForm(page, base)}</section>
<section aria-labelledby="usage-h"><h2 id="usage-h">Usage</h2><div id="${PANEL.usage}">${usagePanel(view)}</div>
${budgetForm(page, base)}</section>
<section aria-labelledby="plan-h"><h2 id="plan-h">Plan</h2><div id="${PANEL.plan}" class="plan">${planPanel(page.plan)}</div></section>
<section aria-labelledby="proc-h"><h2 id="proc-h">Tool processes</h2><div id="${PANEL.processes}">${page.processes}</div></section>
<section aria-labelledby="checkpoints-h"><h2 id="checkpoints-h">Checkpoints</h2><div id="${PANEL.checkpoints}">${checkpointsPanel(page.checkpoints, base, formToken)}</div></section>
</aside>
</div>`;
}

function settingsForm(page: AgentPage, base: string): SafeHtml {
  const cfg = page.view.cfg;
  return html`<form method="post" action="${base}/settings" class="settings">${formTokenField(page.formToken)}
<label>Model <input name="model" list="models" value="${cfg?.model ?? ""}" placeholder="the profile's"></label>
<datalist id="models">${page.models.map((m) => html`<option value="${m.id}"></option>`)}</datalist>
<label>Profile <select name="profile">${page.profiles.map(
    (p) =>
      html`<option value="${p.name}"${p.name === cfg?.profile ? html` selected` : ""}>${p.name}</option>`,
  )}</select></label>
<button type="submit">Apply</button>
</form>`;
}

function budgetForm(page: AgentPage, base: string): SafeHtml {
  const budget = page.view.budget;
  return html`<form method="post" action="${base}/budget" class="budget">${formTokenField(page.formToken)}
<label>Budget in US dollars <input name="usd" inputmode="decimal" value="${budget?.usd ?? ""}" placeholder="none"></label>
<label>Budget in tokens <input name="tokens" inputmode="numeric" value="${budget?.tokens ?? ""}" placeholder="none"></label>
<button type="submit">Set budget</button>
</form>`;
}
