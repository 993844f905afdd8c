import type { ToolProcess } from "@ollie/client";
import { html, type SafeHtml } from "./html.js";
import { actionButton } from "./layout.js";

/** The agent's tool processes at toolsrv: each with its status, its output, and a kill while it runs. */
export function processesPanel(
  processes: ToolProcess[] | undefined,
  base: string,
  formToken: string,
): SafeHtml {
  if (!processes) return html`<p class="empty">The processes cannot be read.</p>`;
  if (processes.length === 0) return html`<p class="empty">None.</p>`;
  return html`<ul class="processes">${processes.map(
    (p) =>
      html`<li><a href="${base}/proc/${p.id}">${p.tool} ${p.id}</a>: <span class="status">${p.status}</span>${
        p.status === "running"
          ? actionButton(`${base}/proc/${p.id}/kill`, "Kill", formToken, {
              danger: true,
              label: `Kill process ${p.id}`,
            })
          : ""
      }</li>`,
  )}</ul>`;
}

/** A process's output so far. */
export function processOutputPage(title: string, back: string, id: string, output: string): SafeHtml {
  return html`<h1><a href="${back}">${title}</a> / process ${id}</h1>
<p>What it printed so far (reload for more).</p>
<pre class="output">${output}</pre>`;
}
