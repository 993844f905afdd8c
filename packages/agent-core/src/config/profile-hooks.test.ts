import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MockReply, ScriptedBackend } from "@ollie/backends/testing";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, only } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../events/agent-events.js";
import { ToolSet } from "../tools/tool-set.js";
import { AgentConfigError, HOOK_NAMES, parseAgentConfig } from "./agent-config.js";
import { profileLoader } from "./profile-loader.js";

const root = mkdtempSync(join(tmpdir(), "agent-core-profile-hooks-"));
const agentsDir = join(root, "agents");
mkdirSync(agentsDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const log = join(root, "events.log");
/** A hook script that writes its event (from the JSON on stdin) to the log, then runs `body`. */
function script(name: string, body = "exit 0") {
  const file = join(root, name);
  writeFileSync(file, `#!/bin/sh\nsed -n 's/.*"event":"\\([A-Za-z]*\\)".*/\\1/p' >> ${log}\n${body}\n`, {
    mode: 0o755,
  });
  return file;
}
const logged = () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean);

/** An agent made from the profile `hooks` (with those hooks) over a scripted model. */
async function agentWithHooks(hooks: Record<string, string | string[]>, replies: MockReply[]) {
  writeFileSync(log, "");
  writeFileSync(join(agentsDir, "hooked.json"), JSON.stringify({ prompt: "You test hooks.", hooks }));
  const backend = new ScriptedBackend({ replies });
  const load = profileLoader({
    agentsDir,
    backend: async () => backend,
    tools: async () => new ToolSet([echoTool("read")]),
    prompt: { ollieDir: root, env: { PATH: process.env.PATH } },
  });
  const events: AgentEvent[] = [];
  const spec = await load("hooked", { cwd: root });
  const agent = await Agent.create({
    ...spec,
    cwd: root,
    profile: "hooked",
    // A short history is enough to compact.
    compaction: { hotMessages: 2 },
    onEvent: (e) => events.push(e),
  });
  const warnings = () =>
    only(events, "info")
      .map((e) => e.message)
      .filter((m) => m.startsWith("warning: "));
  return { agent, backend, events, warnings };
}

const SUMMARY: MockReply = { text: '{"objective":"test hooks","decisions":["read a"]}' };

describe("a profile's hooks", () => {
  it("may name all eight events", () => {
    expect([...HOOK_NAMES].sort()).toEqual(
      [
        "agentSpawn",
        "preTurn",
        "postTurn",
        "preTool",
        "postTool",
        "preCompact",
        "postCompact",
        "turnError",
      ].sort(),
    );
    const hooks = Object.fromEntries(HOOK_NAMES.map((h) => [h, `$OLLIE/hooks/${h}`]));
    expect(parseAgentConfig({ hooks }).hooks).toEqual(hooks);
    const unknown = (() => {
      try {
        parseAgentConfig({ hooks: { postCompaction: "x" } }, "agents/x.json");
      } catch (error) {
        return error;
      }
    })();
    expect(unknown).toBeInstanceOf(AgentConfigError);
    expect((unknown as Error).message).toBe(
      `agents/x.json: hooks.postCompaction: unknown key (the keys are: ${HOOK_NAMES.join(", ")})`,
    );
  });

  it("all run as scripts, each at its point of the agent's life", async () => {
    const hooks = Object.fromEntries(HOOK_NAMES.map((h) => [h, script(`log-${h}`)]));
    const { agent } = await agentWithHooks(hooks, [
      call("read", { path: "a" }),
      { text: "done" },
      SUMMARY,
      { fault: { type: "rate_limit", retryAfter: 60 } },
    ]);
    expect((await agent.submit("Read a")).status).toBe("done");
    expect(await agent.compact()).toBe(true);
    expect((await agent.submit("again")).status).toBe("handled");
    expect(logged()).toEqual([
      "agentSpawn",
      "preTurn",
      "preTool",
      "postTool",
      "postTurn",
      "preCompact",
      "postCompact",
      "preTurn",
      "turnError",
      "postTurn",
    ]);
  });

  it("preTurn: exit 0 puts its output into the turn; exit 2 blocks the turn with stderr as the reason", async () => {
    const ok = await agentWithHooks({ preTurn: script("ctx", "echo 'The build is red.'") }, [{ text: "ok" }]);
    expect((await ok.agent.submit("Fix it")).status).toBe("done");
    expect(ok.backend.calls[0]!.messages.at(-1)).toEqual({
      role: "user",
      content: "Fix it\n\nThe build is red.",
    });

    const refusing = await agentWithHooks(
      { preTurn: script("quiet", "echo 'some context'; echo 'quiet hours until 9' >&2; exit 2") },
      [{ text: "never" }],
    );
    const outcome = await refusing.agent.submit("Fix it");
    expect(outcome).toMatchObject({ status: "blocked", reason: "quiet hours until 9", steps: 0 });
    expect(refusing.backend.calls).toEqual([]);
    expect(only(refusing.events, "turn")[0]!.outcome.status).toBe("blocked");
  });

  it("preTurn: another exit status is a warning and the turn runs without its output", async () => {
    const { agent, backend, warnings } = await agentWithHooks(
      { preTurn: script("odd", "echo 'ignored'; echo 'no git here' >&2; exit 1") },
      [{ text: "ok" }],
    );
    expect((await agent.submit("Fix it")).status).toBe("done");
    expect(backend.calls[0]!.messages.at(-1)).toEqual({ role: "user", content: "Fix it" });
    expect(warnings()).toEqual([
      expect.stringMatching(/^warning: preTurn hook '.*odd' exited with status 1: no git here$/),
    ]);
  });

  it("postCompact: exit 0 output joins the context after the compaction", async () => {
    const { agent, warnings } = await agentWithHooks(
      { postCompact: script("after", "echo 'Re-read PLAN.md.'") },
      [call("read", { path: "a" }), { text: "done" }, SUMMARY],
    );
    await agent.submit("Read a");
    expect(await agent.compact()).toBe(true);
    expect(agent.history.at(-1)).toEqual({
      role: "user",
      content: "[ollie] postCompact hook:\nRe-read PLAN.md.",
    });
    expect(warnings()).toEqual([]);
  });

  it("postCompact: any other status, exit 2 included, is reported; the compaction stands and the next command runs", async () => {
    const { agent, events, warnings } = await agentWithHooks(
      {
        postCompact: [
          script("two", "echo 'said no'; echo 'too late' >&2; exit 2"),
          script("one", "echo 'broken' >&2; exit 1"),
          script("fine", "echo 'Re-read PLAN.md.'"),
        ],
      },
      [call("read", { path: "a" }), { text: "done" }, SUMMARY],
    );
    await agent.submit("Read a");
    expect(await agent.compact()).toBe(true);
    expect(only(events, "compaction")).toHaveLength(1);
    expect(logged().filter((e) => e === "postCompact")).toHaveLength(3);
    expect(agent.history.at(-1)).toEqual({
      role: "user",
      content: "[ollie] postCompact hook:\nRe-read PLAN.md.",
    });
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^warning: postCompact hook '.*two' exited with status 2 \(this event cannot be blocked\): too late$/,
      ),
      expect.stringMatching(/^warning: postCompact hook '.*one' exited with status 1: broken$/),
    ]);
  });
});
