import type { PendingBypass } from "@ollie/client";
import { html, type SafeHtml } from "./html.js";
import { formTokenField } from "./layout.js";

/** The element the live stream replaces with the pending requests. */
export const APPROVALS_ID = "approvals";

export function approvalsPage(pending: PendingBypass[], formToken: string): SafeHtml {
  return html`<h1>Approvals</h1>
<p>Agents' requests to run something outside their sandbox. Each runs as you, with your rights, once approved.</p>
<div id="${APPROVALS_ID}">${approvalsList(pending, formToken)}</div>`;
}

export function approvalsList(pending: PendingBypass[], formToken: string): SafeHtml {
  if (pending.length === 0) return html`<p class="empty">No request is waiting.</p>`;
  return html`<ul class="approvals">${pending.map(
    (p) => html`<li class="approval" id="bypass-${p.number}">
<h2>Request ${p.number}: <code>${p.operation}</code> for <code>${p.agent}</code></h2>
<p>Command:</p><pre class="command"><code>${p.command}</code></pre>
${p.reason ? html`<p>Why: ${p.reason}</p>` : ""}
<form method="post" action="/approvals/${p.number}/approve" class="inline">${formTokenField(formToken)}<button type="submit" aria-label="Approve request ${p.number}">Approve</button></form>
<form method="post" action="/approvals/${p.number}/deny" class="inline">${formTokenField(formToken)}<label>Reason <input name="reason" autocomplete="off"></label><button type="submit" class="danger" aria-label="Deny request ${p.number}">Deny</button></form>
</li>`,
  )}</ul>`;
}
