import { dollars } from "../../dollars.js";
import { doingText, shortCount } from "../../frontend/agent-text.js";
import { budgetCell } from "../../frontend/budget-text.js";
import type { AgentView, SessionView } from "../live/session-view.js";
import { html, type SafeHtml } from "./html.js";
import { actionButton } from "./layout.js";

/** The element id of a session's rows: the live stream replaces it whole. */
export const sessionRowsId = (session: string) => `s-${session}`;

export const agentPath = (session: string, agent: string) =>
  `/s/${encodeURIComponent(session)}/a/${encodeURIComponent(agent)}`;

/** What an agent is doing, in words (never in colour alone): `idle`, `thinking`, `calling shell: make`. */
export function stateText(agent: Pick<AgentView, "activity" | "outcome">): string {
  const doing = agent.activity ? doingText(agent.activity) : "unknown";
  return doing === "idle" && agent.outcome?.status === "error" ? "idle (failed)" : doing;
}

/** A session's rows of the sessions table: one per agent, the session's own cells on the first. */
export function sessionRows(view: SessionView, formToken: string): SafeHtml {
  const { entry } = view;
  const rows = view.agents.map((agent, i) => {
    const tokens = agent.usage ? agent.usage.inputTokens + agent.usage.outputTokens : 0;
    const running = (agent.activity?.state ?? "idle") !== "idle";
    return html`<tr class="${running ? "running" : "idle"}">
${i === 0 ? html`<th scope="row" data-label="Session"><a href="${agentPath(entry.id, "main")}">${entry.name}</a></th>` : html`<td data-label="Session"></td>`}
<td data-label="Agent"><a href="${agentPath(entry.id, agent.name)}">${agent.name}</a></td>
<td data-label="State" class="state">${stateText(agent)}</td>
<td data-label="Profile">${agent.cfg?.profile ?? ""}</td>
<td data-label="Model">${agent.cfg?.model ?? "(profile's)"}</td>
<td data-label="Directory" class="path">${i === 0 ? entry.cwd : ""}</td>
<td data-label="Turns" class="number">${agent.turns}</td>
<td data-label="Tokens" class="number">${shortCount(tokens)}</td>
<td data-label="Cost" class="number">${dollars(agent.usage?.costUsd ?? 0)}</td>
<td data-label="Budget">${i === 0 ? budgetCell(view.budget) || "none" : ""}</td>
<td data-label="Last turn">${agent.outcome?.text ?? "none yet"}</td>
<td data-label="Actions" class="actions">${
      i === 0
        ? html`${actionButton(`/s/${entry.id}/fork`, "Fork", formToken, { label: `Fork ${entry.name}` })}${actionButton(
            `/s/${entry.id}/kill`,
            "Kill",
            formToken,
            { danger: true, label: `Kill ${entry.name}` },
          )}`
        : ""
    }</td>
</tr>`;
  });
  return html`<tbody id="${sessionRowsId(entry.id)}" class="session">${rows}</tbody>`;
}
