import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotBackend, KiroBackend, parseBackendsConf } from "@ollie/backends";
import { closedPort, type KiroDeviceFlowOptions, MockLlmServer } from "@ollie/backends/testing";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OLLIE } from "./harness.js";

/** A home of its own for each test: config, data (where logins are kept) and namespace under one directory. */
function home() {
  const root = mkdtempSync(join(tmpdir(), "ollie-login-"));
  roots.push(root);
  const env = {
    HOME: root,
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "data"),
    NAMESPACE: join(root, "ns"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
  };
  const ollie = (...args: string[]) =>
    execa(process.execPath, [OLLIE, ...args], { cwd: root, env, extendEnv: false, reject: false });
  const credentials = join(root, "data", "ollie", "credentials.json");
  const stored = () =>
    JSON.parse(readFileSync(credentials, "utf8")) as Record<string, Record<string, unknown>>;
  return { root, env, ollie, credentials, stored, conf: join(root, "config", "ollie", "backends.conf") };
}
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => {
  await server.close();
});

const CODE_LINE =
  /^Open https:\/\/github\.com\/login\/device and enter ([0-9A-Z]{4}-[0-9A-Z]{4}) \(the code expires in 15 minutes\)$/m;

describe("ollie login copilot", () => {
  // Fractions of a second, as the mock allows, so that a test takes no five-second polls.
  const flow = { intervalSeconds: 0.05, pendingPolls: 1, expiresInSeconds: 900 };
  afterEach(() => server.copilot.configure({ deviceFlow: { ...flow, outcome: "granted" } }));

  it("shows the code, waits through pending and slow_down, and keeps the GitHub token private", async () => {
    server.copilot.configure({ deviceFlow: { ...flow, slowDownIntervalSeconds: 0.1, outcome: "granted" } });
    const polls = server.copilot.devicePolls;
    const h = home();
    const githubUrl = server.baseUrl("copilot");
    const host = new URL(githubUrl).host;
    const r = await h.ollie("login", "copilot", "--github-url", githubUrl);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(CODE_LINE);
    expect(r.stderr).toContain("waiting for it to be entered… (Ctrl-C cancels)");
    expect(r.stdout).toBe(
      [
        `signed in to ${host}: the GitHub token is kept in ${h.credentials} (readable by you alone)`,
        `next: 'ollie init copilot' writes ${h.conf} with a [copilot] profile (add \`github_url = ${githubUrl}\` to it); ` +
          "models to try: gpt-4.1 or gpt-5-mini (no premium requests), claude-sonnet-4.5",
      ].join("\n"),
    );
    // Pending, slow down, granted: each poll after the interval then in force.
    expect(server.copilot.devicePolls - polls).toBe(3);
    expect(server.copilot.earlyPolls).toBe(0);
    expect(statSync(h.credentials).mode & 0o777).toBe(0o600);
    expect(statSync(join(h.root, "data", "ollie")).mode & 0o777).toBe(0o700);
    const login = h.stored().copilot?.[host] as { githubToken: string; source: string };
    expect(login).toMatchObject({ githubToken: expect.stringMatching(/^gho_/), source: "device flow" });

    // The token is one GitHub issued: Copilot's token exchange takes it, and the backend finds it there.
    const backend = new CopilotBackend({ model: "gpt-4.1", githubUrl, githubApiUrl: githubUrl, env: h.env });
    const exchanges = server.copilot.exchanges;
    expect((await backend.models()).map((m) => m.id)).toContain("gpt-4.1");
    expect(server.copilot.exchanges).toBe(exchanges + 1);
  });

  it("says so in one line, exit 1, when the sign-in is refused, the code expires or GitHub cannot be reached", async () => {
    const h = home();
    const githubUrl = server.baseUrl("copilot");
    server.copilot.configure({ deviceFlow: { ...flow, outcome: "denied" } });
    const denied = await h.ollie("login", "copilot", "--github-url", githubUrl);
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toMatch(CODE_LINE);
    expect(denied.stderr.split("\n").at(-1)).toBe(
      "ollie: login copilot: GitHub ended the login: The authorization request was denied.",
    );
    expect(denied.stdout).toBe("");

    server.copilot.configure({ deviceFlow: { ...flow, outcome: "expired" } });
    const expired = await h.ollie("login", "copilot", "--github-url", githubUrl);
    expect(expired.exitCode).toBe(1);
    expect(expired.stderr).toContain(
      "ollie: login copilot: GitHub ended the login: The device code has expired; 'ollie login copilot' gives a new code",
    );

    const port = await closedPort();
    const down = await h.ollie("login", "copilot", "--github-url", `http://127.0.0.1:${port}`);
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toBe(
      `ollie: login copilot: request to http://127.0.0.1:${port}/login/device/code failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(() => statSync(h.credentials)).toThrow(/ENOENT/);
  });

  it("stops at Ctrl-C, exit 130, storing nothing", async () => {
    server.copilot.configure({ deviceFlow: { ...flow, pendingPolls: 1_000_000 } });
    const h = home();
    const child = execa(
      process.execPath,
      [OLLIE, "login", "copilot", "--github-url", server.baseUrl("copilot")],
      {
        env: h.env,
        extendEnv: false,
        reject: false,
      },
    );
    let stderr = "";
    await new Promise<void>((resolve) =>
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("Ctrl-C cancels")) resolve();
      }),
    );
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toMatch(/\nollie: login copilot cancelled: nothing was stored$/);
    expect(() => statSync(h.credentials)).toThrow(/ENOENT/);
  });

  it("--import copies a Copilot editor plugin's token, and says where it looked when there is none", async () => {
    const h = home();
    const none = await h.ollie("login", "copilot", "--import");
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(
      `ollie: login copilot: no Copilot editor plugin has a GitHub token for github.com (looked in ${h.root}/config/github-copilot/apps.json and ${h.root}/config/github-copilot/hosts.json): 'ollie login copilot' signs in with a code instead`,
    );

    const plugin = join(h.root, "config", "github-copilot");
    mkdirSync(plugin, { recursive: true });
    writeFileSync(
      join(plugin, "apps.json"),
      JSON.stringify({
        "github.com:Iv1.b507a08c87ecfe98": {
          user: "octocat",
          oauth_token: "ghu_fromtheplugin",
          githubAppId: "Iv1.b507a08c87ecfe98",
        },
      }),
    );
    const r = await h.ollie("login", "copilot", "--import");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")[0]).toBe(
      `copied the GitHub token for github.com from ${plugin}/apps.json to ${h.credentials} (readable by you alone)`,
    );
    expect(h.stored().copilot?.["github.com"]).toEqual({
      githubToken: "ghu_fromtheplugin",
      source: join(plugin, "apps.json"),
      user: "octocat",
    });
    expect(statSync(h.credentials).mode & 0o777).toBe(0o600);
  });
});

describe("ollie login kiro", () => {
  const servers: MockLlmServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  /** A mock whose SSO OIDC device flow follows `deviceFlow`, polled every 50 ms. */
  async function kiroServer(deviceFlow: KiroDeviceFlowOptions) {
    const s = await MockLlmServer.start({ kiro: { deviceFlow: { intervalSeconds: 0.05, ...deviceFlow } } });
    servers.push(s);
    return { s, oidcUrl: `${s.baseUrl("kiro")}/oidc` };
  }
  const KIRO_CODE =
    /^Open https:\/\/view\.awsapps\.com\/start\/#\/device and enter ([A-Z]{4}-[A-Z]{4}) \(the code expires in \d+ minutes\)\n {2}\(or open https:\/\/view\.awsapps\.com\/start\/#\/device\?user_code=\1, which has the code filled in\)\nwaiting for it to be entered… \(Ctrl-C cancels\)$/;

  it("signs in with a Builder ID through pending and slow_down, and keeps the login private", async () => {
    // slow_down adds the five seconds RFC 8628 asks for: the one slow test here.
    const { s, oidcUrl } = await kiroServer({ pendingPolls: 1, slowDown: true });
    const h = home();
    const r = await h.ollie("login", "kiro", "--oidc-url", oidcUrl);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(KIRO_CODE);
    expect(r.stdout).toBe(
      [
        `signed in to Kiro with an AWS Builder ID in us-east-1: the token is kept in ${h.credentials} (readable by you alone)`,
        `next: 'ollie init kiro' writes ${h.conf} with a [kiro] profile; models to try: claude-sonnet-4.5, claude-haiku-4.5 (fewer credits)`,
      ].join("\n"),
    );
    expect(s.kiro.counts).toMatchObject({
      registrations: 1,
      deviceAuthorizations: 1,
      devicePolls: 3,
      fastPolls: 0,
    });
    expect(statSync(h.credentials).mode & 0o777).toBe(0o600);
    expect(h.stored().kiro).toMatchObject({
      authMethod: "IdC",
      provider: "BuilderId",
      region: "us-east-1",
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });

    // The token is one the service issued: the Q API takes it, and the backend finds it there.
    const base = s.baseUrl("kiro");
    const backend = new KiroBackend({ model: "claude-sonnet-4.5", baseUrl: base, authUrl: base, env: h.env });
    expect((await backend.models()).map((m) => m.id)).toContain("claude-sonnet-4.5");
  });

  it("signs in to IAM Identity Center with --start-url and --region", async () => {
    const { oidcUrl } = await kiroServer({ pendingPolls: 0 });
    const h = home();
    const startUrl = "https://example-org.awsapps.com/start";
    const r = await h.ollie(
      "login",
      "kiro",
      "--start-url",
      startUrl,
      "--region",
      "eu-west-1",
      "--oidc-url",
      oidcUrl,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      `signed in to Kiro with IAM Identity Center (${startUrl}) in eu-west-1: the token is kept in ${h.credentials} (readable by you alone)`,
    );
    expect(h.stored().kiro).toMatchObject({ provider: "Enterprise", region: "eu-west-1", startUrl });
  });

  it("says so in one line, exit 1, when the sign-in is refused or the code expires", async () => {
    const h = home();
    const denied = await h.ollie(
      "login",
      "kiro",
      "--oidc-url",
      (await kiroServer({ outcome: "access_denied" })).oidcUrl,
    );
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toMatch(
      /\(Ctrl-C cancels\)\nollie: login kiro: the sign-in was refused \(access_denied\)$/,
    );
    const expired = await h.ollie(
      "login",
      "kiro",
      "--oidc-url",
      (await kiroServer({ outcome: "expired_token" })).oidcUrl,
    );
    expect(expired.exitCode).toBe(1);
    expect(expired.stderr.split("\n").at(-1)).toBe(
      "ollie: login kiro: the code expired before it was entered: run `ollie login kiro` again",
    );
    expect(existsSync(h.credentials)).toBe(false);
  });
});

describe("ollie init copilot and kiro", () => {
  it("writes a [copilot] profile without a key and says to sign in", async () => {
    const h = home();
    const r = await h.ollie("init", "copilot");
    const conf = parseBackendsConf(readFileSync(h.conf, "utf8"));
    expect(conf.defaultProfile).toBe("copilot");
    expect(conf.profiles.get("copilot")).toMatchObject({
      type: "copilot",
      model: "gpt-4.1",
      credential: { kind: "none" },
    });
    expect(r.stdout).toBe(
      [
        `wrote ${h.conf}: [copilot], the default: copilot, model gpt-4.1`,
        "no key: 'ollie login copilot' signs in to GitHub (or a Copilot editor plugin's token is used)",
        "olliesrv is not running: it reads the file when it starts",
      ].join("\n"),
    );
    // Nobody signed in here: the check fails before asking GitHub anything.
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^ollie: \[copilot\] did not answer: key refused: .*no GitHub login for github\.com/,
    );
    expect(r.stderr).toMatch(
      /\n {2}sign in with 'ollie login copilot' \(olliesrv needs no restart\), then 'ollie backends' checks it$/,
    );

    // A login afterwards points at the profile now there.
    const login = await h.ollie("login", "copilot", "--github-url", server.baseUrl("copilot"));
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stdout.split("\n")[1]).toBe(
      `next: 'ollie backends' checks that [copilot] answers (add \`github_url = ${server.baseUrl("copilot")}\` to it)`,
    );
  });

  it("ollie init kiro: a [kiro] profile in us-east-1 that uses the Kiro IDE's sign-in or ollie login kiro's", async () => {
    const h = home();
    const r = await h.ollie("init", "kiro", "--no-check");
    expect([r.exitCode, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      [
        `wrote ${h.conf}: [kiro], the default: kiro, model claude-sonnet-4.5`,
        "no key: the Kiro IDE's sign-in is used, or 'ollie login kiro' signs in with an AWS Builder ID",
        "olliesrv is not running: it reads the file when it starts",
      ].join("\n"),
    );
    expect(parseBackendsConf(readFileSync(h.conf, "utf8")).profiles.get("kiro")).toMatchObject({
      type: "kiro",
      model: "claude-sonnet-4.5",
      region: "us-east-1",
      credential: { kind: "none" },
    });
  });

  it("lists copilot and kiro among the providers, signed in rather than keyed", async () => {
    const r = await home().ollie("init");
    expect(r.stdout).toMatch(
      /^ {2}copilot +\[copilot\] copilot, model gpt-4\.1, signed in with 'ollie login copilot'$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}kiro +\[kiro\] kiro, model claude-sonnet-4\.5, signed in with 'ollie login kiro'$/m,
    );
  });
});

describe("ollie login's arguments", () => {
  // Each mistake is a unit test of the arguments (src/cli/login-args.test.ts); here, how one reaches a person.
  it("refuses a mistake as a usage mistake, and prints its usage for --help", async () => {
    const h = home();
    const r = await h.ollie("login", "gitlab");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^ollie: login knows copilot and kiro, not 'gitlab'\ntry 'ollie login --help' for the usage$/,
    );
    const help = await h.ollie("login", "kiro", "-h");
    expect([help.exitCode, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toMatch(/^usage: ollie login copilot \[--github-url URL\] \[--import\]\n/);
  });
});
