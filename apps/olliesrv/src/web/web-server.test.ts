import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonLink } from "./daemon-link.js";
import { CONTENT_SECURITY_POLICY } from "./headers.js";
import { startWeb, type WebServer } from "./web-server.js";

/** A server whose olliesrv never answers: what is checked here comes before any page is made. */
let web: WebServer;
let link: DaemonLink;
const TOKEN = "a-test-token-of-the-right-shape-0123456789";
beforeAll(async () => {
  link = new DaemonLink(() => Promise.reject(new Error("no olliesrv in this test")));
  web = await startWeb({
    link,
    host: "127.0.0.1",
    port: 0,
    defaultCwd: "/",
    staticDir: "/nonexistent",
    token: TOKEN,
  });
});
afterAll(async () => {
  await web.close();
  link.close();
});

/** A request as a browser or a script sends it: the Host header is whatever `headers` say. */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: web.port, path, method: options.method ?? "GET", headers: options.headers },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

async function cookie(): Promise<string> {
  const login = await send(`/?token=${TOKEN}`);
  const set = login.headers["set-cookie"];
  return (Array.isArray(set) ? set[0]! : String(set)).split(";")[0]!;
}

const form = "application/x-www-form-urlencoded";

describe("ollie web's guard", () => {
  it("refuses a request without the token, or with another", async () => {
    expect((await send("/")).status).toBe(401);
    expect((await send("/?token=wrong")).status).toBe(401);
    expect((await send("/events?page=sessions")).status).toBe(401);
    expect((await send("/static/app.js")).status).toBe(401);
    expect((await send("/", { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect((await send("/", { headers: { cookie: `ollie_web_${web.port}=${TOKEN}` } })).status).toBe(401);
  });

  it("trades the token for a cookie the page's scripts cannot read, and takes it out of the address", async () => {
    const login = await send(`/s/x/a/main?token=${TOKEN}&q=1`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/s/x/a/main?q=1");
    const set = String(login.headers["set-cookie"]);
    expect(set).toMatch(
      new RegExp(`^ollie_web_${web.port}=[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Strict`),
    );
    expect(set).not.toContain(TOKEN);
    // Past the guard: olliesrv does not answer, and the page says so.
    const page = await send("/", { headers: { cookie: await cookie() } });
    expect(page.status).toBe(503);
    expect(page.body).toContain("olliesrv does not answer");
  });

  it("answers only to loopback names on loopback (no DNS rebinding)", async () => {
    const answer = await send(`/?token=${TOKEN}`, { headers: { host: `rebound.example:${web.port}` } });
    expect(answer.status).toBe(421);
    expect((await send(`/?token=${TOKEN}`, { headers: { host: `localhost:${web.port}` } })).status).toBe(303);
  });

  it("takes a change only from its own pages: same origin, and the form token", async () => {
    const jar = await cookie();
    const ours = `http://127.0.0.1:${web.port}`;
    const post = (headers: Record<string, string>, body = "name=x") =>
      send("/sessions", { method: "POST", headers: { cookie: jar, "content-type": form, ...headers }, body });
    expect((await post({})).status).toBe(403);
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ origin: ours })).status).toBe(403);
    expect((await post({ origin: ours }, "csrf=wrong")).status).toBe(403);
    expect((await post({ origin: ours, "x-csrf-token": "wrong" })).status).toBe(403);
    // A script with the bearer token is no page of another site: it needs no form token.
    const script = await send("/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": form, accept: "application/json" },
      body: "name=x",
    });
    expect(script.status).toBe(409);
    expect(JSON.parse(script.body).problem).toContain("olliesrv");
  });

  it("has no head for a stream, which would run with nobody to read it", async () => {
    const head = await send("/events?page=sessions", {
      method: "HEAD",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(head.status).toBe(405);
    expect(web.streams.size).toBe(0);
  });

  it("takes a token's address apart from any other site's", async () => {
    const login = await send(`//evil.example/x?token=${TOKEN}`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/evil.example/x");
  });

  it("sends a policy that runs no inline script and frames nothing", async () => {
    const answer = await send("/", { headers: { cookie: await cookie() } });
    expect(answer.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["cache-control"]).toBe("no-store");
  });
});
