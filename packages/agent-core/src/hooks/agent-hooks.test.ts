import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesMarked } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { HookBlockedError } from "../agent/errors.js";
import type { HookCommands } from "./shell-hooks.js";
import { shellHooks } from "./shell-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-agent-hooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A hook script: records its payload to `log` (one JSON line per call), then runs `body`. */
function hook(name: string, body = "exit 0") {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\ncat >> ${join(dir, "payloads.jsonl")}\n${body}\n`, { mode: 0o755 });
  return file;
}
const payloads = () =>
  readFileSync(join(dir, "payloads.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const withHooks = (commands: HookCommands) =>
  shellHooks(commands, { cwd: dir, env: { PATH: process.env.PATH } });

describe("hooks in a conversation", () => {
  it("fire at every point of a turn with their payloads", async () => {
    writeFileSync(join(dir, "payloads.jsonl"), "");
    const { agent } = await scriptedAgent([call("read", { path: "a" }), { text: "done" }], {
      id: "glenda",
      cwd: dir,
      tools: tools(echoTool("read")),
      hooks: withHooks({
        agentSpawn: hook("spawn"),
        preTurn: hook("pre-turn"),
        preTool: hook("pre-tool"),
        postTool: hook("post-tool"),
        postTurn: hook("post-turn"),
      }),
    });
    await agent.submit("Read a");
    const seen = payloads();
    expect(seen.map((p) => p.event)).toEqual(["agentSpawn", "preTurn", "preTool", "postTool", "postTurn"]);
    for (const p of seen) {
      expect(p).toMatchObject({
        session_id: agent.sessionId,
        agent_id: "glenda",
        agent: "glenda",
        cwd: dir,
        model: "scripted-model",
      });
    }
    expect(seen[1]).toMatchObject({ prompt: "Read a" });
    expect(seen[2]).toMatchObject({ tool: "read", call_id: "call_scripted_0", args: { path: "a" } });
    expect(seen[3]).toMatchObject({ tool: "read", result: 'read {"path":"a"}', is_error: false });
    expect(seen[4]).toMatchObject({
      status: "done",
      steps: 1,
      reply: "done",
      block_count: 0,
      hook_active: false,
    });
  });

  it("agentSpawn: exit 0 output goes into the context; exit 2 refuses the agent", async () => {
    const { agent } = await scriptedAgent([], {
      hooks: withHooks({ agentSpawn: hook("hello", "echo 'Repository: ollie'") }),
    });
    expect(agent.history).toEqual([{ role: "user", content: "[ollie] agentSpawn hook:\nRepository: ollie" }]);
    await expect(
      scriptedAgent([], {
        hooks: withHooks({ agentSpawn: hook("refuse", "echo 'not in this directory'; exit 2") }),
      }),
    ).rejects.toThrow(HookBlockedError);
  });

  it("preTurn: exit 0 output joins the prompt; exit 2 stops the turn before the model is asked", async () => {
    const ok = await scriptedAgent([{ text: "ok" }], {
      hooks: withHooks({ preTurn: hook("ctx", "echo 'The build is red.'") }),
    });
    await ok.agent.submit("Fix it");
    expect(ok.backend.calls[0]!.messages.at(-1)).toEqual({
      role: "user",
      content: "Fix it\n\nThe build is red.",
    });

    const blocked = await scriptedAgent([], {
      hooks: withHooks({ preTurn: hook("stop", "echo 'quiet hours' >&2; exit 2") }),
    });
    const outcome = await blocked.agent.submit("Fix it");
    expect(outcome).toMatchObject({ status: "blocked", reason: "quiet hours" });
    expect(blocked.backend.calls).toEqual([]);
  });

  it("preTool: exit 2 refuses the call and tells the model why; a hook that cannot run refuses it too", async () => {
    const cases: Array<[string, string]> = [
      ["echo 'no writes outside src/'; exit 2", "write was not run: no writes outside src/"],
      ["exec /no/such/guard", "write was not run: the preTool hook could not decide"],
    ];
    for (const [body, reason] of cases) {
      let ran = false;
      const write = echoTool("write", {
        run: () => {
          ran = true;
          return "written";
        },
      });
      const { agent, of } = await scriptedAgent([call("write", { path: "/etc/x" }), { text: "ok" }], {
        tools: tools(write),
        hooks: withHooks({ preTool: hook(`guard-${reason.length}`, body) }),
      });
      await agent.submit("go");
      expect(ran).toBe(false);
      expect(of("tool")[0]!.result).toMatchObject({
        isError: true,
        content: expect.stringContaining(reason!),
      });
    }
  });

  it("preTool: a hook whose setsid child holds its stdout neither hangs the turn nor outlives it", async () => {
    const id = randomUUID();
    const { agent } = await scriptedAgent([call("read", { path: "a" }), { text: "done" }], {
      hooks: shellHooks(
        { preTool: hook("detaches", "setsid sleep 1000 &\nexit 0") },
        { cwd: dir, env: { PATH: process.env.PATH, OLLIE_TEST_MARK: id }, timeoutMs: 60_000 },
      ),
    });
    expect((await agent.submit("go")).status).toBe("done");
    expect(processesMarked(`OLLIE_TEST_MARK=${id}`)).toEqual([]);
  });

  it("postTool: exit 0 output is appended to the result, exit 2 output replaces it, other exits warn", async () => {
    const cases: Array<[string, string | RegExp]> = [
      ["echo 'lint: 2 warnings'", "read {}\n\n[ollie] postTool hook:\nlint: 2 warnings"],
      ["echo '[redacted]'; exit 2", "[redacted]"],
      ["echo 'oops' >&2; exit 3", "read {}"],
    ];
    for (const [i, [body, seen]] of cases.entries()) {
      const { agent, of } = await scriptedAgent([call("read"), { text: "ok" }], {
        tools: tools(echoTool("read")),
        hooks: withHooks({ postTool: hook(`post-${i}`, body) }),
      });
      await agent.submit("go");
      expect(of("tool")[0]!.result.content).toEqual(seen);
      if (i === 2)
        expect(of("info").map((e) => e.message)).toEqual([
          expect.stringMatching(/^warning: postTool hook '.*' exited with status 3: oops$/),
        ]);
    }
  });

  it("postTurn: exit 2 keeps the turn going with its output, at most 3 times in a row", async () => {
    const { agent, backend, of } = await scriptedAgent(() => ({ text: "I am done." }), {
      hooks: withHooks({ postTurn: hook("not-yet", "echo 'The tests still fail.'; exit 2") }),
    });
    const outcome = await agent.submit("Fix the tests");
    expect(outcome.status).toBe("done");
    expect(backend.calls).toHaveLength(4);
    expect(backend.calls[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: "[ollie] postTurn hook:\nThe tests still fail.",
    });
    expect(of("info").map((e) => e.message)).toContain(
      "the postTurn hook blocked 3 times in a row; the turn ends anyway",
    );
  });

  it("a broken hook path warns and the conversation goes on", async () => {
    const { agent, of } = await scriptedAgent([{ text: "ok" }], {
      hooks: withHooks({ preTurn: "/no/such/hook" }),
    });
    expect((await agent.submit("go")).status).toBe("done");
    expect(of("info").map((e) => e.message)).toEqual([
      expect.stringMatching(/^warning: preTurn hook '\/no\/such\/hook' could not start \(exit 127\)/),
    ]);
  });
});

describe("hooks around compaction and failures", () => {
  it("preCompact, postCompact and turnError get their payloads; turnError exit 0 takes the failure over", async () => {
    writeFileSync(join(dir, "payloads.jsonl"), "");
    const earlier = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${i}: ${"words ".repeat(100)}`,
    }));
    const { agent, of } = await scriptedAgent(
      [{ text: '{"objective":"talk","decisions":[]}' }, { fault: { type: "rate_limit", retryAfter: 60 } }],
      {
        history: earlier,
        hooks: withHooks({
          preCompact: hook("pre-compact"),
          postCompact: hook("post-compact"),
          turnError: hook("on-error"),
        }),
      },
    );
    expect(await agent.compact()).toBe(true);
    expect((await agent.submit("go on")).status).toBe("handled");
    expect(of("limitretry")).toEqual([]);
    const [pre, post, error] = payloads();
    expect(pre).toMatchObject({ event: "preCompact", trigger: "command", messages: 12 });
    expect(post).toMatchObject({ event: "postCompact", trigger: "command" });
    expect(post!.tokens_after as number).toBeLessThan(post!.tokens_before as number);
    expect(error).toMatchObject({
      event: "turnError",
      error_type: "RateLimitError",
      status: 429,
      retry_after_ms: 60_000,
    });
  });
});

describe("a hook that exits with another status", () => {
  it("is a warning at every event, and the conversation goes on", async () => {
    const odd = hook("odd", "echo 'something is off' >&2; exit 1");
    const events = [
      "agentSpawn",
      "preTurn",
      "preTool",
      "postTool",
      "postTurn",
      "preCompact",
      "postCompact",
    ] as const;
    const earlier = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${i}: ${"words ".repeat(100)}`,
    }));
    const { agent, of } = await scriptedAgent(
      [call("read"), { text: "done" }, { text: '{"objective":"talk","decisions":[]}' }],
      {
        history: earlier,
        tools: tools(echoTool("read")),
        hooks: withHooks(Object.fromEntries(events.map((e) => [e, odd]))),
      },
    );
    expect((await agent.submit("go")).status).toBe("done");
    expect(await agent.compact()).toBe(true);
    const warned = of("info").map(
      (e) => /^warning: (\w+) hook '.*odd' exited with status 1: something is off$/.exec(e.message)?.[1],
    );
    // agentSpawn does not run for a restored history; every other event warned and went on.
    expect(warned).toEqual(["preTurn", "preTool", "postTool", "postTurn", "preCompact", "postCompact"]);
  });
});

describe("a postCompact hook in this process that blocks", () => {
  it("is reported, and the compaction stands without its output", async () => {
    const earlier = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${i}: ${"words ".repeat(100)}`,
    }));
    const told: Array<[string, boolean | undefined]> = [];
    const { agent, of } = await scriptedAgent([{ text: '{"objective":"talk","decisions":[]}' }], {
      history: earlier,
      hooks: {
        run: async (event, _payload, _signal, canBlock) => {
          told.push([event, canBlock]);
          return event === "postCompact"
            ? { action: "block", output: "too late", warnings: [] }
            : { action: "continue", output: "", warnings: [] };
        },
      },
    });
    expect(await agent.compact()).toBe(true);
    // The agent tells its hooks which events cannot block.
    expect(told).toEqual([
      ["preCompact", true],
      ["postCompact", false],
    ]);
    expect(of("compaction")).toHaveLength(1);
    expect(agent.history.some((m) => m.content.includes("too late"))).toBe(false);
    expect(of("info").map((e) => e.message)).toEqual([
      "warning: the postCompact hook cannot block: too late",
    ]);
  });
});
