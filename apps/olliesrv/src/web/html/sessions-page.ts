import type { BackendInfo, ProfileInfo } from "@ollie/client";
import type { SessionFilter, SessionView } from "../live/session-view.js";
import { html, type SafeHtml } from "./html.js";
import { formTokenField } from "./layout.js";
import { sessionRows } from "./session-rows.js";

export interface SessionsPage {
  sessions: SessionView[];
  filter: SessionFilter;
  profiles: ProfileInfo[];
  backends: BackendInfo[];
  /** The directory a new session is made in unless another is given. */
  defaultCwd: string;
  formToken: string;
}

const STATES: ReadonlyArray<[SessionFilter["state"], string]> = [
  ["any", "any state"],
  ["running", "running"],
  ["idle", "idle"],
  ["failed", "last turn failed"],
];

export function sessionsPage(page: SessionsPage): SafeHtml {
  const { filter, formToken } = page;
  return html`<h1>Sessions</h1>
<form method="get" action="/" class="filter" role="search">
<label>Filter <input type="search" name="q" value="${filter.text}" placeholder="name, directory, profile, model"></label>
<label>State <select name="state">${STATES.map(([value, label]) => option(value, label, value === filter.state))}</select></label>
<button type="submit">Filter</button>
</form>
<div class="table-wrap">
<table class="sessions" id="sessions">
<caption><span id="session-count">${page.sessions.length}</span> sessions${filter.text || filter.state !== "any" ? " (filtered)" : ""}</caption>
<thead><tr><th scope="col">Session</th><th scope="col">Agent</th><th scope="col">State</th><th scope="col">Profile</th><th scope="col">Model</th><th scope="col">Directory</th><th scope="col">Turns</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Budget</th><th scope="col">Last turn</th><th scope="col">Actions</th></tr></thead>
${page.sessions.map((view) => sessionRows(view, formToken))}
</table>
</div>
${newSessionForm(page)}`;
}

function option(value: string, label: string, selected: boolean): SafeHtml {
  return html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`;
}

function newSessionForm(page: SessionsPage): SafeHtml {
  const defaultBackend = page.backends.find((b) => b.isDefault)?.name;
  return html`<section aria-labelledby="new-session"><h2 id="new-session">New session</h2>
<form method="post" action="/sessions" class="new-session">${formTokenField(page.formToken)}
<label>Name <input name="name" autocomplete="off"></label>
<label>Profile <select name="profile">${page.profiles.map((p) =>
    option(p.name, p.description ? `${p.name}: ${p.description}` : p.name, p.name === "default"),
  )}</select></label>
<label>Backend <select name="backend"><option value="">${defaultBackend ? `default (${defaultBackend})` : "default"}</option>${page.backends.map(
    (b) => option(b.name, `${b.name} (${b.type}, ${b.model})`, false),
  )}</select></label>
<label>Model <input name="model" autocomplete="off" placeholder="the profile's"></label>
<label>Directory <input name="cwd" required value="${page.defaultCwd}"></label>
<button type="submit">Create</button>
</form></section>`;
}
