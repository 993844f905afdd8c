import { NoSuchSessionError } from "@ollie/client";
import type { Context, Hono } from "hono";
import { DaemonDownError } from "../daemon-link.js";
import { agentPage } from "../html/agent-page.js";
import { approvalsPage } from "../html/approvals-page.js";
import { historyPage } from "../html/history-page.js";
import { html, type SafeHtml } from "../html/html.js";
import { layout, type PageShell } from "../html/layout.js";
import { processesPanel, processOutputPage } from "../html/processes-panel.js";
import { agentPath } from "../html/session-rows.js";
import { sessionsPage } from "../html/sessions-page.js";
import { readAgentView, readCheckpoints, readTranscript } from "../live/agent-view.js";
import { filterFrom, matches, readSessionView } from "../live/session-view.js";
import type { WebContext } from "./web-context.js";

/** How long a process's page waits for output while the process prints none. */
const OUTPUT_WAIT_MS = 2000;

/** The pages: each read afresh from olliesrv, then kept live by its stream. */
export function pageRoutes(app: Hono, web: WebContext): void {
  const shell = (c: Context, part: Omit<PageShell, "formToken" | "problem">) =>
    c.html(layout({ ...part, formToken: web.access.formToken, problem: c.req.query("problem") }));

  app.get("/", (c) =>
    page(c, async () => {
      const client = web.link.client();
      const filter = filterFrom(new URL(c.req.url).searchParams);
      const [entries, profiles, backends] = await Promise.all([
        client.sessions(),
        client.profiles().catch(() => []),
        client.backends().catch(() => []),
      ]);
      const views = await Promise.all(entries.map((entry) => readSessionView(client, entry)));
      const query = new URLSearchParams({ page: "sessions", q: filter.text, state: filter.state });
      return shell(c, {
        title: "Sessions",
        section: "sessions",
        stream: `/events?${query}`,
        body: sessionsPage({
          sessions: views.filter((v) => matches(v, filter)),
          filter,
          profiles,
          backends,
          defaultCwd: web.defaultCwd,
          formToken: web.access.formToken,
        }),
      });
    }),
  );

  app.get("/approvals", (c) =>
    page(c, async () => {
      const pending = await web.link.client().bypass.pending();
      return shell(c, {
        title: "Approvals",
        section: "approvals",
        stream: "/events?page=approvals",
        body: approvalsPage(pending, web.access.formToken),
      });
    }),
  );

  app.get("/s/:session/a/:agent", (c) =>
    page(c, async () => {
      const { state } = web.link;
      const client = web.link.client();
      const session = await client.findSession(c.req.param("session"));
      const name = c.req.param("agent");
      const agent = client.session(session.id).agent(name);
      const base = agentPath(session.id, name);
      const [shown, view, plan, checkpoints, processes, models, profiles] = await Promise.all([
        readTranscript(agent),
        readAgentView(client, session, name),
        client
          .session(session.id)
          .plan()
          .catch(() => ""),
        readCheckpoints(client, session.id, name),
        agent.processes().catch(() => undefined),
        agent.models().catch(() => []),
        client.profiles().catch(() => []),
      ]);
      const epoch = state.up ? state.epoch : 0;
      const query = new URLSearchParams({
        page: "agent",
        session: session.id,
        agent: name,
        from: String(shown.settled),
        epoch: String(epoch),
      });
      return shell(c, {
        title: `${session.name} / ${name}`,
        section: "agent",
        stream: `/events?${query}`,
        body: agentPage({
          view,
          transcript: shown.html,
          tail: shown.tail,
          plan,
          checkpoints,
          processes: processesPanel(processes, base, web.access.formToken),
          models,
          profiles,
          formToken: web.access.formToken,
        }),
      });
    }),
  );

  app.get("/s/:session/a/:agent/context", (c) =>
    page(c, async () => {
      const client = web.link.client();
      const session = await client.findSession(c.req.param("session"));
      const name = c.req.param("agent");
      const messages = await client.session(session.id).agent(name).history();
      return shell(c, {
        title: `${session.name} / ${name}: history`,
        section: "agent",
        stream: "/events?page=approvals",
        body: historyPage(`${session.name} / ${name}`, messages),
      });
    }),
  );

  app.get("/s/:session/a/:agent/proc/:id", (c) =>
    page(c, async () => {
      const client = web.link.client();
      const session = await client.findSession(c.req.param("session"));
      const name = c.req.param("agent");
      const id = Number(c.req.param("id"));
      // A running process that has printed nothing yet would keep the read waiting: the page does not wait.
      const output = await client
        .session(session.id)
        .agent(name)
        .processOutput(id, AbortSignal.timeout(OUTPUT_WAIT_MS))
        .catch((error: Error) => {
          if (error.name === "TimeoutError" || error.name === "AbortError") return "(nothing yet)";
          throw error;
        });
      return shell(c, {
        title: `process ${id}`,
        section: "agent",
        stream: "/events?page=approvals",
        body: processOutputPage(`${session.name} / ${name}`, agentPath(session.id, name), String(id), output),
      });
    }),
  );
}

/** A page, or a page saying why it cannot be shown: olliesrv down (503), no such session (404). */
async function page(c: Context, make: () => Promise<Response>): Promise<Response> {
  try {
    return await make();
  } catch (error) {
    const status =
      error instanceof DaemonDownError
        ? 503
        : error instanceof NoSuchSessionError || error instanceof TypeError
          ? 404
          : 500;
    return c.html(problemPage(status, (error as Error).message), status);
  }
}

function problemPage(status: number, message: string): string {
  // olliesrv down: the page looks again every 5 s (a refresh, since it runs no script) and is live once it is up.
  const refresh = status === 503 ? html`<meta http-equiv="refresh" content="5">` : "";
  const body: SafeHtml = html`<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<meta name="viewport" content="width=device-width, initial-scale=1"><title>ollie web: ${status}</title><link rel="stylesheet" href="/static/app.css"></head><body><main><h1>${status === 503 ? "olliesrv does not answer" : status === 404 ? "Not found" : "Something went wrong"}</h1><p role="alert">${message}</p><p><a href="/">Sessions</a></p></main></body></html>`;
  return body.text;
}
