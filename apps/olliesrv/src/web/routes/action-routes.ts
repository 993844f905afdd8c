import { NoSuchSessionError, RefusedError, type SessionSpec } from "@ollie/client";
import type { Context, Hono } from "hono";
import { DaemonDownError } from "../daemon-link.js";
import { agentPath } from "../html/session-rows.js";
import type { WebContext } from "./web-context.js";

type Form = Record<string, string>;

/**
 * What a page's forms do. Each answers a plain form with 303 to the page to show next (with `?problem=` when
 * olliesrv refused), and the page's script (`Accept: application/json`) with `{location}` or `{problem}`.
 */
export function actionRoutes(app: Hono, web: WebContext): void {
  const client = () => web.link.client();
  const agentOf = (c: Context) => client().session(c.req.param("session")!).agent(c.req.param("agent"));
  const back = (c: Context) => agentPath(c.req.param("session")!, c.req.param("agent")!);

  app.post("/sessions", (c) =>
    act(c, "/", async (form) => {
      const spec: SessionSpec = { cwd: form.cwd ?? web.defaultCwd };
      if (form.profile) spec.agent = form.profile;
      if (form.backend) spec.backend = form.backend;
      if (form.model) spec.model = form.model;
      if (form.name) spec.name = form.name;
      const session = await client().newSession(spec);
      return agentPath(session.id, "main");
    }),
  );
  app.post("/s/:session/kill", (c) =>
    act(c, "/", async () => {
      await client().session(c.req.param("session")).kill();
      return "/";
    }),
  );
  app.post("/s/:session/fork", (c) =>
    act(c, "/", async () => {
      const fork = await client().session(c.req.param("session")).fork();
      return agentPath(fork.id, "main");
    }),
  );
  app.post("/s/:session/a/:agent/prompt", (c) =>
    act(c, back(c), async (form) => {
      if (!form.text?.trim()) throw new TypeError("a prompt is not empty");
      await agentOf(c).prompt(form.text);
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/stop", (c) =>
    act(c, back(c), async () => {
      await agentOf(c).stop();
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/settings", (c) =>
    act(c, back(c), async (form) => {
      const agent = agentOf(c);
      const cfg = await agent.cfg();
      if (form.profile && form.profile !== cfg.profile) await agent.configure({ profile: form.profile });
      const model = form.model?.trim() ?? "";
      if (model !== "" && model !== cfg.model) await agent.configure({ model });
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/budget", (c) =>
    act(c, back(c), async (form) => {
      const session = client().session(c.req.param("session"));
      const usd = form.usd?.trim().replace(/^\$/, "") ?? "";
      const tokens = form.tokens?.trim() ?? "";
      // Tokens first: a limit in dollars on a model with no price is taken only beside one in tokens.
      await session.ctl(tokens === "" ? "budget tokens off" : `budget tokens ${tokens}`);
      await session.ctl(usd === "" ? "budget usd off" : `budget usd ${usd}`);
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/rewind", (c) =>
    act(c, back(c), async (form) => {
      const n = Number(form.n);
      const what = form.what === "chat" || form.what === "both" ? form.what : "files";
      await agentOf(c).rewind(n, what);
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/undo", (c) =>
    act(c, back(c), async () => {
      await agentOf(c).undo();
      return back(c);
    }),
  );
  app.post("/s/:session/a/:agent/proc/:id/kill", (c) =>
    act(c, back(c), async () => {
      await agentOf(c).killProcess(Number(c.req.param("id")));
      return back(c);
    }),
  );
  app.post("/approvals/:n/:decision{approve|deny}", (c) =>
    act(c, "/approvals", async (form) => {
      const request = client().bypass.request(Number(c.req.param("n")));
      if (c.req.param("decision") === "approve") await request.approve();
      else await request.deny(form.reason ?? "");
      return "/approvals";
    }),
  );
}

/**
 * Does what a form asks and answers where to go. What olliesrv refuses, an id that is not one, or olliesrv
 * down, is said on the page the form was on; nothing else is caught.
 */
async function act(c: Context, from: string, work: (form: Form) => Promise<string>): Promise<Response> {
  const script = (c.req.header("accept") ?? "").includes("application/json");
  const body = await c.req.parseBody();
  const form: Form = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === "string") form[name] = value;
  try {
    const location = await work(form);
    return script ? c.json({ location }) : c.redirect(location, 303);
  } catch (error) {
    if (
      !(
        error instanceof RefusedError ||
        error instanceof DaemonDownError ||
        error instanceof NoSuchSessionError ||
        error instanceof TypeError
      )
    )
      throw error;
    const problem = error instanceof RefusedError ? error.reason : error.message;
    if (script) return c.json({ problem }, 409);
    return c.redirect(`${from}?${new URLSearchParams({ problem })}`, 303);
  }
}
