import { createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIESRV, type Ollie, startOllie } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  // How many sessions came back, and when, is a debug line of the sessions category.
  o = await startOllie("olliesrv-boot-", { args: ["--tcp", "0", "--log-level", "info,sessions=debug"] });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

describe("olliesrv's start", () => {
  it("listens on TCP only once the saved sessions are restored", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await o.create(`cwd=${o.work} name=s${i}`));
    await o.stop();
    const from = o.log().length;
    await o.restart();
    const said = (await o.logged(/serving on tcp!\S+ \(authenticated/)).slice(from);
    const lines = said.split("\n");
    const unix = lines.findIndex((l) => /INFO {2}olliesrv: serving on unix!/.test(l));
    const restored = lines.findIndex((l) => l.includes("olliesrv[sessions]: restored 30 sessions from"));
    const tcp = lines.findIndex((l) => /INFO {2}olliesrv: serving on tcp!127\.0\.0\.1!\d+ /.test(l));
    expect([unix, restored, tcp].every((i) => i >= 0)).toBe(true);
    expect(unix).toBeLessThan(restored);
    expect(restored).toBeLessThan(tcp);
    // The first client over TCP sees every session.
    const address = /serving on (tcp!\S+)/.exec(lines[tcp]!)![1]!;
    const fsys = await o.attachAs(o.owner, o.ownerKey(), address);
    const idx = (await fsys.readFile("session/idx")).toString();
    for (const id of ids) expect(idx).toContain(`${id}\t`);
  });

  it("stops, with status 1, when it cannot listen on TCP", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      // Another daemon, beside the test's, with its own namespace and data.
      const env = { ...o.env, NAMESPACE: join(o.root, "ns2"), XDG_DATA_HOME: join(o.root, "data2") };
      const args = ["--tcp", String(port), "--log-level", "info,sessions=debug"];
      const result = await execa(process.execPath, [OLLIESRV, ...args], {
        env,
        extendEnv: false,
        reject: false,
        timeout: 20_000,
      });
      expect(result.exitCode).toBe(1);
      const lines = result.stderr.split("\n");
      const restored = lines.findIndex((l) => l.includes("olliesrv[sessions]: restored 0 sessions"));
      const failed = lines.findIndex((l) =>
        new RegExp(
          `ERROR olliesrv: cannot listen on tcp!127\\.0\\.0\\.1!${port}: .*EADDRINUSE.*; stopping$`,
        ).test(l),
      );
      expect(restored).toBeGreaterThan(0);
      expect(failed).toBeGreaterThan(restored);
    } finally {
      taken.close();
    }
  });
});
