import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NinepClient, NinepServer, ORDWR } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { ToolsrvConn } from "../client/toolsrv-conn.js";
import { createToolServer } from "../server/tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-call-")));
const dirs = { tools: join(root, "tools"), work: join(root, "work"), tmp: join(root, "tmp") };
for (const d of Object.values(dirs)) mkdirSync(d);
for (const [name, body] of [
  ["hello", 'echo "hello $OLLIE_ARG_WHO"'],
  ["nap", "sleep 30"],
]) {
  const file = join(dirs.tools, name!);
  writeFileSync(file, `#!/bin/sh\n# ollie:tool ${name}\n# ollie:description ${name} for tests.\n${body}\n`);
  chmodSync(file, 0o755);
}
const policy = await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } });

/** A toolsrv on a Unix socket of its own, and an agent's connection to it. */
async function serve(name: string, timing: boolean) {
  const server = createToolServer({
    toolsPath: [dirs.tools],
    policy,
    owner: "glenda",
    defaultTools: ["hello", "nap"],
    baseEnv: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp },
    timing,
  });
  const address = `unix!${join(root, `${name}.sock`)}`;
  const ninep = new NinepServer(server.tree);
  await ninep.listen(address);
  const conn = await ToolsrvConn.dial({ address, uname: "agent1", cwd: dirs.work });
  const stop = async () => {
    await conn.close();
    await server.close();
    await ninep.close();
  };
  return { address, conn, stop };
}

const plain = await serve("plain", false);
const timed = await serve("timed", true);
afterAll(async () => {
  await plain.stop();
  await timed.stop();
  rmSync(root, { recursive: true, force: true });
});

const signal = () => new AbortController().signal;

describe("the call file", () => {
  it("answers a read sent before the call is written once the write comes", async () => {
    const client = await NinepClient.dial(plain.address);
    try {
      const fsys = await client.attach({ uname: "agent1" });
      const file = await fsys.open("call", ORDWR);
      const reading = file.read(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await file.write(JSON.stringify({ tool: "hello", args: { who: "early" }, cwd: dirs.work }));
      expect(JSON.parse((await reading).toString())).toMatchObject({
        output: "hello early\n",
        isError: false,
      });
      await file.close();
    } finally {
      client.close();
    }
  });

  it("makes calls one after another and at once, each on a fid of its own", async () => {
    for (const who of ["a", "b", "c"])
      expect(await plain.conn.call("hello", { who }, signal())).toEqual({ output: `hello ${who}\n` });
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => plain.conn.call("hello", { who: String(i) }, signal())),
    );
    expect(many.map((r) => r.output)).toEqual(Array.from({ length: 8 }, (_, i) => `hello ${i}\n`));
  });

  it("still cancels a call whose signal aborts, and the next call runs", async () => {
    const ac = new AbortController();
    const napping = plain.conn.callRaw({ tool: "nap", args: {} }, ac.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    ac.abort(new Error("enough"));
    await expect(napping).rejects.toThrow("enough");
    const [nap] = (await plain.conn.processes()).filter((p) => p.tool === "nap");
    await expect
      .poll(async () => (await plain.conn.process(nap!.id))?.status, { timeout: 10_000 })
      .toBe("cancelled");
    expect(await plain.conn.call("hello", { who: "again" }, signal())).toEqual({ output: "hello again\n" });
  });
});

describe("per-call timing", () => {
  it("comes with each result when it is on, phase by phase", async () => {
    const r = await timed.conn.callRaw({ tool: "hello", args: { who: "t" } }, signal());
    expect(r.output).toBe("hello t\n");
    expect(Object.keys(r.timing ?? {})).toEqual([
      "parse",
      "validate",
      "lookup",
      "policy",
      "spawn",
      "run",
      "drain",
      "result",
    ]);
    for (const ms of Object.values(r.timing!)) expect(ms).toBeGreaterThanOrEqual(0);
  });

  it("is not there when it is off", async () => {
    const r = await plain.conn.callRaw({ tool: "hello", args: { who: "u" } }, signal());
    expect(r.output).toBe("hello u\n");
    expect(r).not.toHaveProperty("timing");
  });
});
