import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BackendPool, parseBackendsConf } from "@ollie/backends";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type BackendCheck, BackendChecks, checkBackend, checkLine } from "./backend-check.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server that answers every request with `status` and `body`, as a proxy in front of a dead backend does. */
async function answering(status: number, body: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/html" });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const pool = (text: string) =>
  new BackendPool(parseBackendsConf(`default = a\n${text}`, "backends.conf"), {});

describe("a backend check", () => {
  it("says a backend's error page on one short line", async () => {
    const page = `<html>\r\n<head><title>502 Bad Gateway</title></head>\n<body>\n\t${"x".repeat(5000)}\n</body>\n</html>\n`;
    const url = await answering(502, page);
    const check = await checkBackend(pool(`[a]\ntype = openai\nurl = ${url}\nmodel = m\n`), "a");
    expect(check.status).toBe("error");
    expect(check.detail).toMatch(/^502: <html> <head><title>502 Bad Gateway<\/title><\/head> <body> x+…$/);
    expect([...check.detail]).toHaveLength(200);
    // So the line of backends.check is one line of five fields.
    expect(checkLine(check).split("\n")).toHaveLength(2);
    expect(checkLine(check).split("\t")).toHaveLength(5);
  });

  it("stops a key_cmd that takes longer than the check", async () => {
    const check = await checkBackend(
      pool("[a]\ntype = openai\nurl = http://127.0.0.1:1/v1\nmodel = m\nkey_cmd = sleep 30; echo late\n"),
      "a",
      300,
    );
    // Stopped at the check's 0.3 s, as the detail says, not after the command's 30.
    expect([check.status, check.detail]).toEqual(["no-key", "key_cmd did not finish within 0.3 s"]);
  });
});

describe("backends.check's checks", () => {
  /** A run that counts its calls and ends when told. */
  function counted() {
    const runs: Array<{ pool: BackendPool; end: (checks: BackendCheck[]) => void }> = [];
    const run = (p: BackendPool) =>
      new Promise<BackendCheck[]>((resolve) => {
        runs.push({ pool: p, end: resolve });
      });
    return { runs, run };
  }
  /** A window for a negative assertion: a check that should not run has had its turn to start. */
  const settle = () => new Promise((r) => setTimeout(r, 10));
  /** Waits until `runs` has `n` runs. */
  const ran = (runs: unknown[], n: number) =>
    vi.waitFor(() => expect(runs).toHaveLength(n), { timeout: 5000, interval: 5 });

  it("run one at a time, shared by whoever asks meanwhile, and are kept a while", async () => {
    const { runs, run } = counted();
    const checks = new BackendChecks(run, 60_000);
    const a = pool("[a]\ntype = ollama\nmodel = m\n");
    const first = checks.check(a);
    const second = checks.check(a);
    await settle();
    expect(runs).toHaveLength(1);
    runs[0]!.end([]);
    expect(await first).toBe(await second);
    // Asked again soon: the same answer, nothing run.
    expect(await checks.check(a)).toBe(await first);
    expect(runs).toHaveLength(1);

    // Other profiles: checked anew, but not while another check runs.
    const b = pool("[a]\ntype = ollama\nmodel = n\n");
    const c = pool("[a]\ntype = ollama\nmodel = o\n");
    const ofB = checks.check(b);
    await ran(runs, 2);
    const ofC = checks.check(c);
    await settle();
    expect(runs).toHaveLength(2);
    runs[1]!.end([]);
    await ofB;
    await ran(runs, 3);
    expect(runs.map((r) => r.pool)).toEqual([a, b, c]);
    runs[2]!.end([]);
    await ofC;
  });

  it("check again once the last check is older than the cache's time", async () => {
    const { runs, run } = counted();
    const checks = new BackendChecks(run, 0);
    const a = pool("[a]\ntype = ollama\nmodel = m\n");
    const first = checks.check(a);
    await ran(runs, 1);
    runs[0]!.end([]);
    await first;
    void checks.check(a);
    await ran(runs, 2);
    runs[1]!.end([]);
  });
});
