import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ORDWR, OWRITE } from "@ollie/ninep";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

const s = scratch("toolsrv-daemon-");
/** The tools every agent has without loading them. */
const BUILTINS = ["tool_load", "tool_list", "tool_active", "process_output", "process_kill"];
let daemon: Daemon;
// Outside every path the tools' policy grants (which include the test's own temporary directory), named
// for this run alone.
const escaped = `/var/tmp/ollie-escape-test-${randomUUID()}.txt`;
// The bypass runs outside the sandbox, so it may write in the test's own directory.
const touched = join(s.root, "bypass-touched");

beforeAll(async () => {
  s.tool(
    "echo_json",
    shTool(
      "echo_json",
      "# ollie:param text string required  What to echo\n",
      'cat; echo "arg=$OLLIE_ARG_TEXT"',
    ),
  );
  s.tool("fail", shTool("fail", "", "echo some output; echo 'it broke' >&2; exit 4"));
  s.tool(
    "slow_read",
    shTool(
      "slow_read",
      "# ollie:parallel read\n",
      `echo "start $OLLIE_ARG_N $(date +%s%N)" >> ${s.work}/fanout.log; sleep 0.3; echo "end $OLLIE_ARG_N $(date +%s%N)" >> ${s.work}/fanout.log; echo done $OLLIE_ARG_N`,
    ),
  );
  s.tool("big", shTool("big", "", "head -c 3000000 /dev/zero | tr '\\000' y"));
  s.tool("sleepy", shTool("sleepy", "# ollie:timeout 0.5\n", "sleep 30"));
  s.tool("forks", shTool("forks", "", `(sleep 100 & echo $! > ${s.work}/grandchild.pid; wait) & sleep 100`));
  s.tool("escape", shTool("escape", "", `echo inside > ./inside.txt && echo pwned > ${escaped}`));
  s.tool("bad_meta", "#!/bin/sh\n# ollie:tool Bad Name\n# ollie:description x\n");
  writeFileSync(
    join(s.config, "ollie", "bypass.yaml"),
    `operations:\n  - name: touch_outside\n    argv: [touch, ${touched}]\n    approval: required\n`,
  );
  daemon = await startDaemon(s, ["--default-tools", "echo_json"]);
});

afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

const call = async (
  uname: string,
  tool: string,
  args: Record<string, unknown> = {},
  signal = new AbortController().signal,
) => {
  const conn = await daemon.conn(uname);
  try {
    await conn.load([tool]).catch(() => {});
    return await conn.callRaw({ tool, args }, signal);
  } finally {
    await conn.close();
  }
};

describe("toolsrv", () => {
  it("discovers good tools and reports broken ones, in its tree and its log", async () => {
    const { fsys, close } = await daemon.attach("agent1");
    const tools = JSON.parse((await fsys.readFile("tools")).toString()) as Array<{ name: string }>;
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["echo_json", "slow_read", "file_read", "shell", "client_9p"]),
    );
    expect((await fsys.readFile("broken")).toString()).toContain("bad_meta: name: a tool name is lower case");
    // The daemon says so once at start, as well.
    expect(daemon.stderr()).toMatch(
      /WARN {2}toolsrv\[tools\]: \S+\/bad_meta: name: a tool name .*; not offered\n/,
    );
    close();
  });

  it("keeps a loaded set per agent, with a revision that moves when it changes", async () => {
    const a = await daemon.conn("alice");
    const b = await daemon.conn("bob", { autoLoad: ["file_read"] });
    expect((await a.list()).map((t) => t.name)).toEqual([...BUILTINS, "echo_json"]);
    expect((await b.list()).map((t) => t.name)).toEqual([...BUILTINS, "file_read"]);
    const before = await a.revision();
    const { fsys, close } = await daemon.attach("alice");
    const waiting = fsys.open("revwait").then((f) => f.read(0));
    const loaded = await a.callRaw(
      { tool: "tool_load", args: { names: ["fail", "big"] } },
      new AbortController().signal,
    );
    expect(loaded).toMatchObject({ isError: false, output: "loaded fail, big\n" });
    expect(Number((await waiting).toString())).toBe(before + 1);
    expect((await a.list()).map((t) => t.name)).toEqual([...BUILTINS, "big", "echo_json", "fail"]);
    await fsys.writeFile("ctl", "unload big\n");
    expect(await a.revision()).toBe(before + 2);
    expect((await b.list()).map((t) => t.name)).toEqual([...BUILTINS, "file_read"]);
    const notLoaded = await b.callRaw({ tool: "fail", args: {} }, new AbortController().signal);
    expect(notLoaded.output).toBe("fail is not loaded: load it with tool_load (tool_list shows what exists)");
    await expect(fsys.writeFile("ctl", "load no_such_tool\n")).rejects.toThrow("no tool named no_such_tool");
    close();
    await a.close();
    await b.close();
  });

  it("gives a call its arguments, and reports stdout, stderr and the exit status", async () => {
    expect(await call("carol", "echo_json", { text: "hi there" })).toMatchObject({
      isError: false,
      exitCode: 0,
      output: '{"text":"hi there"}\narg=hi there\n',
    });
    const failed = await call("carol", "fail");
    expect(failed).toMatchObject({
      isError: true,
      exitCode: 4,
      output: "some output\n",
      stderr: "it broke\n",
    });
    const conn = await daemon.conn("carol");
    expect(await conn.call("fail", {}, new AbortController().signal)).toEqual({
      output: "some output\n[fail exited with status 4]\nit broke",
      isError: true,
    });
    await conn.close();
  });

  it("fans out parallel-read calls", async () => {
    const conn = await daemon.conn("dave", { autoLoad: ["slow_read"] });
    expect((await conn.list()).find((t) => t.name === "slow_read")?.readSafe).toBe(true);
    const ac = new AbortController();
    const results = await Promise.all([1, 2, 3].map((n) => conn.call("slow_read", { n }, ac.signal)));
    expect(results.map((r) => r.output)).toEqual(["done 1\n", "done 2\n", "done 3\n"]);
    const events = readFileSync(join(s.work, "fanout.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    const lastStart = Math.max(...events.filter((e) => e[0] === "start").map((e) => Number(e[2])));
    const firstEnd = Math.min(...events.filter((e) => e[0] === "end").map((e) => Number(e[2])));
    expect(lastStart).toBeLessThan(firstEnd);
    await conn.close();
  });

  it("caps the output it returns, and says how much there was", async () => {
    const r = await call("erin", "big");
    expect(r).toMatchObject({ isError: false, bytes: 3_000_000, truncated: true });
    expect(Buffer.byteLength(r.output)).toBeLessThan(1024 * 1024 + 200);
    expect(r.output).toContain("bytes of output left out here");
  });

  it("kills a tool at its timeout", async () => {
    expect(await call("erin", "sleepy")).toMatchObject({ isError: true, timedOut: true });
  });

  it("kills the whole process group when the caller gives up, grandchildren included", async () => {
    const ac = new AbortController();
    const pending = call("frank", "forks", {}, ac.signal);
    const pidFile = join(s.work, "grandchild.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    ac.abort(new Error("user pressed stop"));
    await expect(pending).rejects.toThrow("user pressed stop");
    const pid = Number(readFileSync(pidFile, "utf8"));
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
  });

  it("runs tools under Landlock: a write outside the policy is denied", async () => {
    const r = await call("gina", "escape");
    expect(r.isError).toBe(true);
    expect(r.stderr).toMatch(/Permission denied/);
    expect(existsSync(join(s.work, "inside.txt"))).toBe(true);
    expect(existsSync(escaped)).toBe(false);
  });

  it("runs a bypass only with the owner's approval, and logs every step", async () => {
    const agent = await daemon.attach("agent7");
    const owner = await daemon.attach("glenda");
    const request = async () => {
      const f = await agent.fsys.open("bypass/new", ORDWR);
      await f.write(
        JSON.stringify({
          operation: "touch_outside",
          argv: ["touch", touched],
          cwd: s.work,
          reason: "test",
        }),
      );
      const id = (await f.read(0)).toString().trim();
      await f.close();
      return id;
    };
    const status = async (id: string) =>
      (await agent.fsys.readFile(`bypass/requests/${id}/status`)).toString().trim();

    const refused = await agent.fsys.open("bypass/new", ORDWR);
    await refused.write(
      JSON.stringify({ operation: "touch_outside", argv: ["rm", "-rf", "/"], cwd: s.work }),
    );
    const refusedId = (await refused.read(0)).toString().trim();
    expect(await status(refusedId)).toBe("denied: the bypass policy does not allow this command");

    const first = await request();
    expect(await status(first)).toBe("pending");
    await expect(agent.fsys.open(`bypass/requests/${first}/ctl`, OWRITE)).rejects.toThrow(
      /permission denied/i,
    );
    await owner.fsys.writeFile(`bypass/requests/${first}/ctl`, "deny\n");
    expect(await status(first)).toBe("denied by glenda");
    expect(existsSync(touched)).toBe(false);

    const second = await request();
    // statuswait, opened before the approval, blocks until the status changes: to running, then to the end.
    const statuswait = await agent.fsys.open(`bypass/requests/${second}/statuswait`);
    await owner.fsys.writeFile(`bypass/requests/${second}/ctl`, "approve\n");
    let now = await status(second);
    while (now === "pending" || now === "running") now = (await statuswait.read(0)).toString().trim();
    await statuswait.close();
    expect(now).toBe("exited 0");
    expect(existsSync(touched)).toBe(true);
    const log = (await agent.fsys.open("bypass/log")).read(0, 8192);
    expect((await log).toString()).toMatch(/denied by glenda[\s\S]*approved by glenda[\s\S]*exited 0/);
    expect(daemon.stderr()).toContain("approved by glenda");
    agent.close();
    owner.close();
  });
});

afterAll(() => rmSync(escaped, { force: true }));
