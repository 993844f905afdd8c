import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy } from "@ollie/sandbox";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { parseHeader } from "../metadata/header.js";
import { checkMeta } from "../metadata/tool-meta.js";
import { OUTPUT_PAGE_BYTES } from "./process-builtins.js";
import { createToolServer } from "./tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-background-")));
const dirs = { tools: join(root, "tools"), work: join(root, "work"), tmp: join(root, "tmp") };
for (const d of Object.values(dirs)) mkdirSync(d);

/** A shell tool that may run in the background (for `lifetime` seconds when it does). */
function tool(name: string, body: string, lifetime = "") {
  const file = join(dirs.tools, name);
  writeFileSync(
    file,
    `#!/bin/sh\n# ollie:tool ${name}\n# ollie:description ${name} for tests.\n` +
      `# ollie:param background boolean  Run it in the background\n# ollie:background background ${lifetime}\n${body}\n`,
  );
  chmodSync(file, 0o755);
}
// Says its shell's pid first, so a test can see it end; then a line every 50 ms until it is stopped.
tool("ticker", 'echo "pid $$"; i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.05; done');
tool("brief", "echo one; sleep 0.2; echo two");
tool("quiet", "sleep 1000", "1");
tool("loud", "head -c 100000 /dev/zero | tr '\\0' 'x'; sleep 1000");
tool("page", "head -c 40000 /dev/zero | tr '\\0' 'y'");

const server = createToolServer({
  toolsPath: [dirs.tools],
  policy: await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } }),
  owner: "glenda",
  defaultTools: ["ticker", "brief", "quiet", "loud", "page"],
  maxOutputBytes: 64 * 1024,
  maxBackground: 3,
  baseEnv: { PATH: "/usr/bin:/bin" },
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const call = (uname: string, name: string, args: Record<string, unknown> = {}) =>
  server.service.call(
    uname,
    { tool: name, args, cwd: dirs.work, env: { TMPDIR: dirs.tmp } },
    new AbortController().signal,
  );

/** Starts `name` in the background as `uname`; its process id. */
async function start(uname: string, name: string): Promise<number> {
  const r = await call(uname, name, { background: true });
  expect(r).toMatchObject({ isError: false, detached: true });
  expect(r.output).toBe(
    `started in the background as process ${r.proc}; read its output with process_output, end it with process_kill\n`,
  );
  return r.proc!;
}

/** Reads with process_output until `done` holds of the answer. */
async function readUntil(uname: string, id: number, done: (output: string) => boolean): Promise<string> {
  for (;;) {
    const r = await call(uname, "process_output", { id, wait: 5 });
    expect(r.isError).toBe(false);
    if (done(r.output)) return r.output;
  }
}

describe("background processes", () => {
  it("starts a tool detached when the model sets its background argument, and runs it in the foreground otherwise", async () => {
    const r = await call("a1", "brief");
    expect(r).toMatchObject({ isError: false, output: "one\ntwo\n" });
    expect(r.detached).toBeUndefined();
    const id = await start("a1", "brief");
    const out = await readUntil("a1", id, (o) => o.includes("the whole of its output"));
    expect(out).toMatch(new RegExp(`^process ${id} \\(brief\\): exited 0\n`));
  });

  it("reads on from where the last read stopped, waits for more, reads from any offset, and is killed with all it started", async () => {
    const id = await start("a1", "ticker");
    await readUntil("a1", id, (o) => o.includes("tick 2"));
    const first = (await call("a1", "process_output", { id, offset: 0 })).output;
    expect(first).toMatch(new RegExp(`^process ${id} \\(ticker\\): running\npid \\d+\ntick 1\n`));
    expect(first).toMatch(/\[bytes 0–\d+ of \d+ so far: process_output again for more/);
    const pid = Number(/pid (\d+)/.exec(first)![1]);
    const seen = Number(/bytes 0–(\d+)/.exec(first)![1]);

    // The next read starts where this one stopped: no line twice.
    const next = await readUntil("a1", id, (o) => /tick \d+\n/.test(o));
    expect(next).not.toContain("pid ");
    expect(next).not.toMatch(/^tick 1$/m);
    expect(next).toContain(`[bytes ${seen}–`);

    const again = await call("a1", "process_output", { id, offset: 0 });
    expect(again.output).toMatch(/^process \d+ \(ticker\): running\npid \d+\ntick 1\n/);

    expect(processGone(pid)).toBe(false);
    const killed = await call("a1", "process_kill", { id });
    expect(killed).toEqual({
      output: `process ${id} (ticker) ended: cancelled. Its output can still be read with process_output.\n`,
      isError: false,
    });
    expect(processGone(pid)).toBe(true);
    const after = await call("a1", "process_output", { id, offset: 0 });
    expect(after.output).toMatch(new RegExp(`^process ${id} \\(ticker\\): cancelled\npid ${pid}\n`));
    expect(after.output).toContain("the whole of its output]");
    expect(await call("a1", "process_kill", { id })).toEqual({
      output: `process ${id} (ticker) had already ended: cancelled\n`,
      isError: false,
    });
  });

  it("answers another agent as if the process did not exist, and leaves it running", async () => {
    const id = await start("a1", "ticker");
    const none = `no process ${id} of yours: it never was, or it ended long enough ago that toolsrv forgot it`;
    expect(await call("a2", "process_output", { id })).toEqual({ output: none, isError: true });
    expect(await call("a2", "process_kill", { id })).toEqual({ output: none, isError: true });
    expect(server.service.procs.get(id)!.status.get()).toBe("running");
    expect((await call("a1", "process_kill", { id })).output).toContain("ended: cancelled");
    expect(await call("a1", "process_output", { id: 99_999 })).toMatchObject({ isError: true });
    expect(await call("a1", "process_output", {})).toEqual({
      output: "process_output needs id: the process id a call started in the background answered with",
      isError: true,
    });
  });

  it("keeps one agent to maxBackground running at once", async () => {
    const ids = [await start("a3", "ticker"), await start("a3", "ticker"), await start("a3", "ticker")];
    expect(await call("a3", "ticker", { background: true })).toEqual({
      output:
        "ticker was not started: 3 background processes of yours are running, the most there may be; end one with process_kill",
      isError: true,
    });
    // Another agent's count is its own.
    await call("a4", "process_kill", { id: await start("a4", "ticker") });
    await call("a3", "process_kill", { id: ids[0] });
    ids[0] = await start("a3", "ticker");
    for (const id of ids) await call("a3", "process_kill", { id });
  });

  it("ends a background process at its lifetime", async () => {
    const id = await start("a5", "quiet");
    const out = await readUntil("a5", id, (o) => !o.includes(": running\n"));
    expect(out).toMatch(new RegExp(`^process ${id} \\(quiet\\): timed out\n\\(no new output\\)\n`));
  });

  it("keeps the last maxOutputBytes of output, and answers a page at a time", async () => {
    const loud = await start("a6", "loud");
    await readUntil("a6", loud, (o) => o.includes("of 100,000"));
    const dropped = await call("a6", "process_output", { id: loud, offset: 0 });
    expect(dropped.output).toContain(
      `[bytes 0–${(100_000 - 64 * 1024).toLocaleString("en")} are no longer kept`,
    );
    await call("a6", "process_kill", { id: loud });

    const page = await start("a6", "page");
    await server.service.procs.get(page)!.run.done;
    const out = (await call("a6", "process_output", { id: page })).output;
    expect(out.split("\n")[0]).toBe(`process ${page} (page): exited 0`);
    const end = OUTPUT_PAGE_BYTES;
    expect(out).toContain(
      `[bytes 0–${end.toLocaleString("en")} of 40,000: process_output with offset ${end} reads on]`,
    );
    expect(out.split("\n")[1]).toBe("y".repeat(end));
    const rest = await call("a6", "process_output", { id: page, offset: 2 * end });
    expect(rest.output).toContain(
      `[bytes ${(2 * end).toLocaleString("en")}–40,000 of 40,000: the whole of its output]`,
    );
    expect(await call("a6", "process_output", { id: page, offset: 40_001 })).toMatchObject({ isError: true });
  });

  it("lists the loaded tools with tool_active, the builtins after them", async () => {
    const r = await call("a7", "tool_active");
    expect(r.output.split("\n")).toEqual([
      "brief — brief for tests.",
      "loud — loud for tests.",
      "page — page for tests.",
      "quiet — quiet for tests.",
      "ticker — ticker for tests.",
      "always there: tool_load, tool_list, tool_active, process_output, process_kill",
      "",
    ]);
  });
});

describe("ollie:background", () => {
  const meta = (header: string) =>
    checkMeta(
      parseHeader(`#!/bin/sh\n# ollie:tool t\n# ollie:description T.\n# ollie:timeout 30\n${header}`),
    );

  it("names a boolean argument, with the tool's timeout as the lifetime unless it gives one", () => {
    const flag = "# ollie:param background boolean\n";
    expect(meta(`${flag}# ollie:background background`)).toMatchObject({
      meta: { background: { argument: "background", timeoutMs: 30_000 } },
    });
    expect(meta(`${flag}# ollie:background background 3600`)).toMatchObject({
      meta: { background: { argument: "background", timeoutMs: 3_600_000 } },
    });
  });

  it("refuses an argument that is not a boolean parameter", () => {
    expect(meta("# ollie:param background string\n# ollie:background background")).toEqual({
      problem: "background names 'background', which is not a boolean parameter of t",
    });
    expect(meta("# ollie:background bg")).toEqual({
      problem: "background names 'bg', which is not a boolean parameter of t",
    });
    expect(() => meta("# ollie:param bg boolean\n# ollie:background bg soon")).toThrow(
      "background lifetime 'soon' is not a number of seconds",
    );
  });
});
