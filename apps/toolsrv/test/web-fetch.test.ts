import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED, type Daemon, scratch, startDaemon } from "./daemon.js";

const s = scratch("toolsrv-web-fetch-");
let server: Server;
let base: string;

const words = (n: number) => "The quick brown fox jumps over the lazy dog. ".repeat(n);
const article = `<!doctype html><html><head><title>Field notes</title>
<style>.nav { color: red }</style><script>window.track = "tracking code";</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Field notes</h1><h2>The first finding</h2><p>${words(6)} See <a href="/sources">the sources</a>.</p>
<p>${words(6)}</p><h2>The second finding</h2><p>${words(6)}</p>
<script>document.write("injected")</script></article>
<footer>Copyright footer</footer></body></html>`;
const page = `<html><head><title>Index</title><style>body { margin: 0 }</style></head><body>
<h1>Index</h1><p>Go <a href="docs/intro.html">to the intro</a> or <a href="https://example.org/x">elsewhere</a>.</p>
<ul><li>first</li><li>second</li></ul><script>console.log("hidden")</script><noscript>enable scripts</noscript>
</body></html>`;
// A real PNG's signature and header chunk, then filler: enough to be recognisably binary.
const png = Buffer.concat([
  Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex"),
  Buffer.alloc(1200, 7),
]);
const huge = Buffer.from(
  `<html><body>${Array.from({ length: 30_000 }, (_, i) => `<p>Paragraph ${i}: ${words(4)}</p>`).join("")}</body></html>`,
);

beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, type: string | undefined, body: string | Buffer, headers = {}) => {
      res.writeHead(status, { ...(type && { "content-type": type }), ...headers });
      res.end(body);
    };
    switch (req.url) {
      case "/article":
        return send(200, "text/html; charset=utf-8", article);
      case "/page":
        return send(200, "text/html", page);
      case "/start":
        return send(301, undefined, "", { location: "/middle" });
      case "/middle":
        return send(302, undefined, "", { location: `${base}/page` });
      case "/loop":
        return send(302, "text/plain", "again", { location: "/loop" });
      case "/to-file":
        return send(302, undefined, "", { location: "file:///etc/passwd" });
      case "/missing":
        return send(
          404,
          "text/html",
          "<html><body><h1>Not Found</h1><p>Nothing lives at this address.</p></body></html>",
        );
      case "/broken":
        return send(500, "text/plain", "database connection lost\n");
      case "/huge":
        return send(200, "text/html", huge, { "content-length": huge.length });
      case "/data.json":
        return send(200, "application/json", '{"name":"ollie","tools":["web_fetch"]}');
      case "/image.png":
        return send(200, "image/png", png);
      case "/unlabelled-text":
        return send(200, undefined, "plain words, served without a type\n");
      case "/unlabelled-binary":
        return send(200, undefined, Buffer.from([0, 1, 2, 3, 255, 254, 0, 0]));
      case "/latin1":
        return send(200, "text/plain; charset=iso-8859-1", Buffer.from("caf\xe9 cr\xe8me", "latin1"));
      case "/empty":
        return send(200, "text/html", "");
      default:
        return send(404, "text/plain", "no such route");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  s.remove();
});

/** Runs a built tool as toolsrv would, outside the sandbox: JSON on stdin, in the work directory. */
async function run(tool: string, args: Record<string, unknown>, env: Record<string, string> = {}) {
  const r = await execa(join(BUNDLED, tool), [], {
    cwd: s.work,
    input: JSON.stringify(args),
    env: { PATH: process.env.PATH, ...env },
    extendEnv: false,
    reject: false,
  });
  return { out: String(r.stdout), err: String(r.stderr).trim(), code: r.exitCode };
}
const fetched = (args: Record<string, unknown>) => run("web_fetch", args);
/** The content after the header's blank line. */
const content = (out: string) => out.slice(out.indexOf("\n\n") + 2);

describe("web_fetch", () => {
  it("turns an article into Markdown: headings and absolute links kept; scripts, styles and navigation left out", async () => {
    const r = await fetched({ url: `${base}/article` });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      new RegExp(
        `^URL: ${base}/article\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\nTitle: Field notes\n` +
          "Shown: the main article, as Markdown\n\n# Field notes\n\n## The first finding\n\n",
      ),
    );
    expect(r.out).toContain(`[the sources](${base}/sources)`);
    expect(r.out).toContain("## The second finding");
    for (const left of ["tracking code", "injected", "color: red", "Home", "Copyright footer"])
      expect(r.out).not.toContain(left);
  });

  it("converts the whole body of a page that is no article", async () => {
    const r = await fetched({ url: `${base}/page` });
    expect(r.code).toBe(0);
    expect(content(r.out)).toBe(
      `# Index\n\nGo [to the intro](${base}/docs/intro.html) or [elsewhere](https://example.org/x).\n\n` +
        "- first\n- second",
    );
    expect(r.out).toContain("Shown: the page, as Markdown");
  });

  it("gives the page as served with raw", async () => {
    const r = await fetched({ url: `${base}/page`, raw: true });
    expect(content(r.out)).toBe(page);
  });

  it("follows a redirect chain and reports the final URL and each hop", async () => {
    const r = await fetched({ url: `${base}/start` });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`URL: ${base}/page\nStatus: 200 OK\n`);
    expect(r.out).toContain(`Redirected: ${base}/start (301) → ${base}/middle (302) → ${base}/page\n`);
    expect(r.out).toContain("# Index");
  });

  it("stops a redirect loop after 10 redirects, and follows none to other schemes", async () => {
    const loop = await fetched({ url: `${base}/loop` });
    expect(loop.code).toBe(1);
    expect(loop.err).toMatch(new RegExp(`^${base}/loop: more than 10 redirects \\(a loop\\?\\): `));
    expect(loop.out).toBe("");
    expect((await fetched({ url: `${base}/to-file` })).err).toBe(
      `${base}/to-file redirected to file:///etc/passwd: only http and https are followed`,
    );
  });

  it("reports an HTTP error with its status and an excerpt of the page", async () => {
    const missing = await fetched({ url: `${base}/missing` });
    expect(missing).toEqual({
      out: "",
      code: 1,
      err:
        `URL: ${base}/missing\nStatus: 404 Not Found\nContent-Type: text/html\n` +
        "The page says: # Not Found Nothing lives at this address.",
    });
    const broken = await fetched({ url: `${base}/broken` });
    expect(broken.code).toBe(1);
    expect(broken.err).toContain("Status: 500 Internal Server Error\n");
    expect(broken.err).toContain("The page says: database connection lost");
  });

  it("reads at most 5 MiB of a huge page and keeps the answer within max_chars, saying what was cut", async () => {
    const r = await fetched({ url: `${base}/huge`, max_chars: 3000 });
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `Cut: only the first 5,242,880 bytes of ${huge.length.toLocaleString("en-US")} were read (the limit); the rest was not fetched\n`,
    );
    const body = content(r.out);
    const [shown, note] = body.split("\n\n[cut: ");
    expect(shown!.length).toBeLessThanOrEqual(3000);
    expect(shown).toMatch(/^Paragraph 0: The quick brown fox/);
    expect(note).toMatch(/^[\d,]+ of [\d,]+ characters shown; max_chars shows up to 100,000\]$/);
  });

  // One fetch a test: each runs the tool in its own sandboxed process, which a loaded machine makes slow.
  it("gives JSON as served", async () => {
    expect(await fetched({ url: `${base}/data.json` })).toMatchObject({
      code: 0,
      out: `URL: ${base}/data.json\nStatus: 200 OK\nContent-Type: application/json\n\n{"name":"ollie","tools":["web_fetch"]}`,
    });
  });

  it("gives text in its charset", async () => {
    expect(content((await fetched({ url: `${base}/latin1` })).out)).toBe("café crème");
  });

  it("describes a binary without dumping it", async () => {
    expect(content((await fetched({ url: `${base}/image.png` })).out)).toBe(
      `[image/png, ${png.length.toLocaleString("en-US")} bytes: not text, not shown]`,
    );
  });

  it("tells text served without a Content-Type by its first bytes", async () => {
    const text = await fetched({ url: `${base}/unlabelled-text` });
    expect(text.out).toContain("Content-Type: (none given)\n\nplain words, served without a type");
  });

  it("tells a binary served without a Content-Type by its first bytes", async () => {
    expect(content((await fetched({ url: `${base}/unlabelled-binary` })).out)).toBe(
      "[binary data, 8 bytes: not text, not shown]",
    );
  });

  it("says an empty page has no text", async () => {
    expect(content((await fetched({ url: `${base}/empty` })).out)).toBe("(no text)");
  });

  it("refuses what is not an http or https URL, and names the cause of a failed connection", async () => {
    expect((await fetched({ url: "ftp://example.org/file" })).err).toBe(
      "only http and https URLs are fetched, not ftp:",
    );
    expect((await fetched({ url: "example.org" })).err).toBe(
      "'example.org' is not a URL (give it whole, starting https:// or http://)",
    );
    expect((await fetched({})).err).toBe("missing argument 'url'");
    // A port nothing listens on: take one, then let it go.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect((await fetched({ url: `http://127.0.0.1:${port}/` })).err).toBe(
      `http://127.0.0.1:${port}/: connection refused by 127.0.0.1:${port} (nothing listens there)`,
    );
  });
});

describe("web_search", () => {
  const script = (name: string, body: string) => s.tool(name, `#!/bin/sh\n${body}\n`);

  it("says that no search is configured, and searches nothing", async () => {
    const r = await run("web_search", { query: "landlock" });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^no web search is configured: set OLLIE_WEB_SEARCH in the session's environment/);
  });

  it("runs the configured command with the query as its one argument and returns what it prints", async () => {
    const search = script("search", 'printf "1. %s\\n   https://example.org/?q=%s\\n" "$1" "$#"');
    const r = await run("web_search", { query: "landlock; rm -rf /" }, { OLLIE_WEB_SEARCH: search });
    expect(r).toEqual({ code: 0, err: "", out: "1. landlock; rm -rf /\n   https://example.org/?q=1" });
    const none = script("search-none", "true");
    expect((await run("web_search", { query: "x" }, { OLLIE_WEB_SEARCH: none })).out).toBe(
      '(no results for "x")',
    );
  });

  it("reports a command that fails or is missing", async () => {
    const failing = script("search-fails", 'echo "quota exceeded" >&2; exit 3');
    expect((await run("web_search", { query: "x" }, { OLLIE_WEB_SEARCH: failing })).err).toBe(
      `OLLIE_WEB_SEARCH '${failing}' failed (exit status 3):\nquota exceeded`,
    );
    const missing = join(s.root, "no-such-search");
    expect((await run("web_search", { query: "x" }, { OLLIE_WEB_SEARCH: missing })).err).toBe(
      `OLLIE_WEB_SEARCH '${missing}' is not found (give its full path, or put it on PATH)`,
    );
  });
});

describe("through toolsrv, under the session's sandbox", () => {
  /** A toolsrv whose policy is the defaults plus the overlay `yaml`, and one call through it. */
  async function callUnder(
    yaml: string | undefined,
    tool: string,
    args: Record<string, unknown>,
    env: Record<string, string> = {},
  ) {
    const daemonArgs: string[] = [];
    if (yaml !== undefined) {
      const name = `web-${Math.random().toString(36).slice(2)}`;
      mkdirSync(join(s.config, "ollie", "sandbox"), { recursive: true });
      writeFileSync(join(s.config, "ollie", "sandbox", `${name}.yaml`), yaml);
      daemonArgs.push("--sandbox", name);
    }
    let daemon: Daemon | undefined;
    try {
      daemon = await startDaemon(s, daemonArgs);
      const conn = await daemon.conn("agent-web", { autoLoad: [tool], env });
      try {
        return await conn.callRaw({ tool, args }, new AbortController().signal);
      } finally {
        await conn.close();
      }
    } finally {
      await daemon?.stop();
    }
  }
  const fetchUnder = (yaml: string | undefined, url: string) => callUnder(yaml, "web_fetch", { url });
  const noNetwork = "the sandbox allows no network for this session (its policy's network.enabled is false)";

  it("web_fetch is refused by the sandbox when the policy has no network", async () => {
    const byAddress = await fetchUnder("network:\n  enabled: false\n", `${base}/page`);
    expect(byAddress).toMatchObject({ isError: true, exitCode: 1 });
    expect(byAddress.stderr).toBe(`${base}/page: ${noNetwork}\n`);
    // By name, the lookup is what fails first; the tool still names the sandbox as the cause.
    const byName = await fetchUnder("network:\n  enabled: false\n", "http://web-fetch-test.invalid/");
    expect(byName.stderr).toBe(`http://web-fetch-test.invalid/: ${noNetwork}\n`);
  });

  it("web_fetch gets no port the policy does not grant: the defaults allow 80 and 443 only", async () => {
    const r = await fetchUnder(undefined, `${base}/page`);
    expect(r.isError).toBe(true);
    expect(r.stderr).toBe(
      `${base}/page: the sandbox does not allow this session to connect to TCP port ${new URL(base).port} (its policy's network.connect_tcp)\n`,
    );
  });

  it("web_fetch fetches when the policy grants the connection", async () => {
    const r = await fetchUnder(`network:\n  connect_tcp: [${new URL(base).port}]\n`, `${base}/start`);
    expect(r).toMatchObject({ isError: false, exitCode: 0 });
    expect(r.output).toContain(`URL: ${base}/page\nStatus: 200 OK\n`);
    expect(r.output).toContain(`[to the intro](${base}/docs/intro.html)`);
  });

  it("web_search runs the session's search command in the sandbox, where the policy lets it run", async () => {
    const dir = join(s.root, "search-bin");
    mkdirSync(dir, { recursive: true });
    const search = join(dir, "search");
    writeFileSync(search, '#!/bin/sh\necho "results for $1"\n', { mode: 0o755 });
    const env = { OLLIE_WEB_SEARCH: search };
    const refused = await callUnder(undefined, "web_search", { query: "9p" }, env);
    expect(refused.stderr).toBe(
      `OLLIE_WEB_SEARCH '${search}' cannot be run here: it is not executable, or the sandbox does not grant its directory (rox)\n`,
    );
    const granted = await callUnder(`filesystem:\n  rox: ["${dir}"]\n`, "web_search", { query: "9p" }, env);
    expect(granted).toMatchObject({ isError: false, output: "results for 9p\n" });
  });
});
