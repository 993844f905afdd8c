import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processGone, processesMarked as survivors } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { WAIT } from "../__fixtures__/agents.js";
import { runHook, runHookList } from "./run-hook.js";
import { shellHooks } from "./shell-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-hooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Generous, so that a loaded machine never turns a hook that should finish into a timeout. */
const options = { cwd: dir, env: { PATH: process.env.PATH }, timeoutMs: 30_000 };

describe("a hook command", () => {
  it("gets the payload as JSON on stdin and as OLLIE_* variables", async () => {
    const run = await runHook(
      `cat > payload.json; printf '%s|%s|%s' "$OLLIE_SESSION_ID" "$OLLIE_TOOL_NAME" "$OLLIE_ARGS"`,
      { session_id: "123-abc", toolName: "shell", args: { cmd: "ls" }, missing: undefined },
      options,
    );
    expect(run).toMatchObject({ outcome: "ok", exitCode: 0, stdout: '123-abc|shell|{"cmd":"ls"}' });
    expect(JSON.parse(readFileSync(join(dir, "payload.json"), "utf8"))).toEqual({
      session_id: "123-abc",
      toolName: "shell",
      args: { cmd: "ls" },
    });
  });

  it.each([
    ["exit 0", "echo fine", "ok"],
    ["exit 2", "echo no >&2; exit 2", "block"],
    ["another status", "exit 1", "warn"],
    ["a path that does not exist", "/no/such/hook --now", "failed"],
    ["a command it cannot execute", `${dir}`, "failed"],
    ["death by a signal", "kill -9 $$", "failed"],
  ])("reports %s", async (_what, command, outcome) => {
    expect((await runHook(command, {}, options)).outcome).toBe(outcome);
  });

  it("that sleeps forever and starts a child is killed with its whole group at the timeout", async () => {
    const pids = join(dir, "pids");
    // A hook that waited for its `sleep 1000` would outlast the test's own timeout.
    const run = await runHook(
      `sleep 1000 & echo $! > ${pids}; echo $$ >> ${pids}; sleep 1000`,
      {},
      {
        ...options,
        timeoutMs: 300,
      },
    );
    expect(run).toMatchObject({ outcome: "failed", problem: "timed out after 0.3 s" });
    const left = readFileSync(pids, "utf8").trim().split("\n").map(Number);
    expect(left).toHaveLength(2);
    for (const pid of left) expect(processGone(pid)).toBe(true);
  });

  describe("leaves nothing behind, however its children detach", () => {
    const detached: Array<[string, string]> = [
      ["setsid, holding its stdout", "setsid sleep 1000 &"],
      ["a double fork", "( (sleep 1000 &) & )"],
      [
        "a daemon's double fork into a new session",
        `python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); time.sleep(1000)'`,
      ],
      ["nohup", "nohup sleep 1000 >/dev/null 2>&1 &"],
    ];
    /** Waits until nothing carries the mark; fails naming what still does. */
    const ended = (marker: string) => vi.waitFor(() => expect(survivors(marker)).toEqual([]), WAIT);
    const marked = () => {
      const id = randomUUID();
      return { marker: `OLLIE_TEST_MARK=${id}`, env: { ...options.env, OLLIE_TEST_MARK: id } };
    };

    it.each(detached)("when it exits, leaving %s", async (_how, start) => {
      const { marker, env } = marked();
      const run = await runHook(`${start}\nsleep 0.2; echo done`, {}, { ...options, env });
      expect(run).toMatchObject({ outcome: "ok", stdout: "done\n" });
      await ended(marker);
    });

    it.each(detached)("at its timeout, with %s", async (_how, start) => {
      const { marker, env } = marked();
      const run = await runHook(`${start}\nsleep 1000`, {}, { ...options, env, timeoutMs: 500 });
      expect(run).toMatchObject({ outcome: "failed", problem: "timed out after 0.5 s" });
      await ended(marker);
    });

    it.each(detached)("when stopped, with %s", async (_how, start) => {
      const { marker, env } = marked();
      const ac = new AbortController();
      const running = runHook(`${start}\nsleep 1000`, {}, { ...options, env, signal: ac.signal });
      await vi.waitFor(() => expect(survivors(marker).length).toBeGreaterThanOrEqual(2), WAIT);
      ac.abort();
      expect(await running).toMatchObject({ outcome: "failed", problem: "stopped" });
      await ended(marker);
    });
  });

  it("in a list stops the list when it blocks", async () => {
    const runs = await runHookList(["echo one", "exit 2", "echo three"], {}, options);
    expect(runs.map((r) => r.outcome)).toEqual(["ok", "block"]);
  });
});

describe("shell hooks", () => {
  const script = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  it("turn exit 0 into context, exit 2 into a block, and anything else into a warning", async () => {
    const hooks = shellHooks(
      {
        preTurn: [script("ctx1", "echo 'Today is Monday.'"), script("ctx2", "echo 'The build is red.'")],
        preCompact: script("no", "echo 'not now' >&2; exit 2"),
        postTool: [script("odd", "echo 'hmm' >&2; exit 5"), script("after", "echo checked")],
      },
      options,
    );
    expect(await hooks.run!("preTurn", {})).toEqual({
      action: "continue",
      output: "Today is Monday.\nThe build is red.",
      warnings: [],
    });
    expect(await hooks.run!("preCompact", {})).toEqual({ action: "block", output: "not now", warnings: [] });
    expect(await hooks.run!("postTool", {})).toEqual({
      action: "continue",
      output: "checked",
      warnings: [`postTool hook '${join(dir, "odd")}' exited with status 5: hmm`],
    });
    expect(await hooks.run!("postTurn", {})).toEqual({ action: "continue", output: "", warnings: [] });
  });

  it("fail closed for preTool: a hook that cannot run blocks the call", async () => {
    const hooks = shellHooks({ preTool: "/no/such/guard", postTool: "/no/such/logger" }, options);
    const pre = await hooks.run!("preTool", {});
    expect(pre.action).toBe("block");
    expect(pre.output).toMatch(/^the preTool hook could not decide \(could not start \(exit 127\)/);
    const post = await hooks.run!("postTool", {});
    expect(post.action).toBe("continue");
    expect(post.warnings).toEqual([
      expect.stringMatching(/^postTool hook '\/no\/such\/logger' could not start/),
    ]);
  });

  it("handle a turn error only when every turnError command exits 0", async () => {
    expect(await shellHooks({ turnError: "true" }, options).turnError!({})).toBe(true);
    expect(await shellHooks({ turnError: ["true", "exit 1"] }, options).turnError!({})).toBe(false);
    expect(await shellHooks({}, options).turnError!({})).toBe(false);
  });
});
