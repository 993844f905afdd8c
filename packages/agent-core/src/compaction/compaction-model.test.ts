import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackendPool, parseBackendsConf } from "@ollie/backends";
import { MockLlmServer, type MockReply, type RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoTool, only } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import { profileLoader } from "../config/profile-loader.js";
import type { AgentEvent } from "../events/agent-events.js";
import { loadSession, saveSession } from "../persist/session-file.js";
import { ToolSet } from "../tools/tool-set.js";
import { COMPACTION_INSTRUCTIONS } from "./summary.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-core-compaction-model-")));
const agentsDir = join(root, "agents");
mkdirSync(agentsDir);

const MAIN = "claude-sonnet-4-5";
const SMALL = "claude-haiku-4-5";
const SUMMARY: MockReply = {
  text: JSON.stringify({ objective: "Survey the repository", decisions: ["it is a monorepo"] }),
  usage: { input: 1000, output: 100 },
};
/** The price table's figures: sonnet 4 at $3 / $15 per million tokens in / out, haiku 4 at $1 / $5. */
const sonnet = (input: number, output: number) => (input * 3 + output * 15) / 1e6;
const haiku = (input: number, output: number) => (input * 1 + output * 5) / 1e6;

let server: MockLlmServer;
/** What the main model answers, in order; the summary request is told apart by its instructions. */
let script: MockReply[] = [];
const isSummary = (r: RecordedRequest) =>
  JSON.stringify(r.body).includes(COMPACTION_INSTRUCTIONS.slice(0, 60));
const chats = () => server.requests.filter((r) => r.path.endsWith("/chat/completions"));

beforeAll(async () => {
  server = await MockLlmServer.start({
    replies: (r) => (isSummary(r) ? SUMMARY : (script.shift() ?? { text: "(nothing scripted)" })),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** A backends.conf with one profile on the mock server, with `extra` lines in its section. */
function pool(extra = ""): BackendPool {
  const conf = `[mock]\ntype = openai\nurl = ${server.baseUrl("openai")}\nmodel = ${MAIN}\n${extra}`;
  return new BackendPool(parseBackendsConf(conf, join(root, "backends.conf")));
}

async function agentFrom(backends: BackendPool, profile: Record<string, unknown>) {
  writeFileSync(join(agentsDir, "worker.json"), JSON.stringify({ prompt: "You survey.", ...profile }));
  const load = profileLoader({
    agentsDir,
    backend: (name) => backends.fresh(name),
    compactionModel: (name) => backends.profile(name).compactionModel,
    tools: async () => new ToolSet([echoTool("read", { run: (a) => `file ${a.n}\n${"text\n".repeat(50)}` })]),
    prompt: { ollieDir: root },
  });
  const spec = await load("worker", { cwd: root });
  const events: AgentEvent[] = [];
  const agent = await Agent.create({
    ...spec,
    cwd: root,
    contextLength: 4000,
    compaction: { hotMessages: 2 },
    onEvent: (e) => events.push(e),
  });
  return { agent, events };
}

describe("the compaction model", () => {
  it("writes the summary when backends.conf names one, and its usage is a line of its own", async () => {
    server.requests.length = 0;
    const { agent, events } = await agentFrom(pool(`compaction_model = ${SMALL}`), {});
    // The first reply says the context holds 3000 tokens: over half the window, so the history is compacted
    // before the next request.
    script = [
      {
        text: "Reading.",
        toolCalls: [{ name: "read", arguments: { n: 1 } }],
        usage: { input: 3000, output: 50 },
      },
      { text: "Done.", usage: { input: 500, output: 20 } },
    ];
    const outcome = await agent.submit("survey the repository");
    expect(outcome.status).toBe("done");
    expect(chats().map((r) => [r.model, isSummary(r)])).toEqual([
      [MAIN, false],
      [SMALL, true],
      [MAIN, false],
    ]);
    expect(agent.runtime.backend.model).toBe(MAIN);

    const compaction = { inputTokens: 1000, outputTokens: 100, requests: 1 };
    const usage = agent.usage;
    expect(usage.compaction).toMatchObject(compaction);
    expect(usage.compaction.costUsd).toBeCloseTo(haiku(1000, 100), 12);
    // A part of the session's totals, and of the turn's, since it happened during the turn.
    const all = sonnet(3000, 50) + sonnet(500, 20) + haiku(1000, 100);
    expect(usage.session).toMatchObject({ inputTokens: 4500, outputTokens: 170, requests: 3 });
    expect(usage.session.costUsd).toBeCloseTo(all, 12);
    expect(usage.turn.requests).toBe(3);
    expect(outcome.usage.costUsd).toBeCloseTo(all, 12);

    const summaryUsage = only(events, "usage").find((e) => e.compaction !== undefined);
    expect(summaryUsage).toMatchObject({ model: SMALL, compaction, request: { inputTokens: 1000 } });
    expect(summaryUsage!.costUsd).toBeCloseTo(haiku(1000, 100), 12);
    expect(only(events, "usage").filter((e) => e.compaction === undefined)).toHaveLength(2);
    expect(only(events, "compaction")).toMatchObject([{ trigger: "threshold", model: SMALL }]);
  });

  it("is the agent profile's own when it names one; a compaction on command is not part of a turn", async () => {
    server.requests.length = 0;
    const { agent, events } = await agentFrom(pool(`compaction_model = ${SMALL}`), {
      compactionModel: "claude-opus-4-1",
    });
    script = [
      { text: "Hello.", usage: { input: 40, output: 5 } },
      { text: "Hello again.", usage: { input: 60, output: 5 } },
    ];
    await agent.submit("hi");
    await agent.submit("hi again");
    const turn = agent.usage.turn;
    expect(await agent.compact()).toBe(true);
    expect(chats().map((r) => r.model)).toEqual([MAIN, MAIN, "claude-opus-4-1"]);
    expect(only(events, "compaction")).toMatchObject([{ trigger: "command", model: "claude-opus-4-1" }]);
    expect(agent.usage.turn).toEqual(turn);
    expect(agent.usage.compaction).toMatchObject({ inputTokens: 1000, requests: 1 });
    expect(agent.usage.session).toMatchObject({ inputTokens: 1100, requests: 3 });

    // Saved with the session, and carried on by an agent restored from it.
    const file = join(root, "session.json");
    await saveSession(file, agent.snapshot());
    const { session } = await loadSession(file);
    expect(session.compactionUsage).toEqual(agent.usage.compaction);
    const again = await Agent.resume(session, { backend: agent.runtime.backend });
    expect(again.usage.compaction).toEqual(agent.usage.compaction);
    expect(again.usage.session).toEqual(agent.usage.session);
  });

  it("is the agent's own model when nothing names another, and is still counted apart", async () => {
    server.requests.length = 0;
    const { agent } = await agentFrom(pool(), {});
    expect(agent.runtime.spec.compactionBackend).toBeUndefined();
    script = [{ text: "Hello." }, { text: "Hello again." }];
    await agent.submit("hi");
    await agent.submit("hi again");
    expect(await agent.compact()).toBe(true);
    expect(chats().map((r) => [r.model, isSummary(r)])).toEqual([
      [MAIN, false],
      [MAIN, false],
      [MAIN, true],
    ]);
    expect(agent.usage.compaction).toMatchObject({ requests: 1, outputTokens: 100 });
    expect(agent.usage.compaction.costUsd).toBeCloseTo(sonnet(1000, 100), 12);
    // Nothing was compacted before: the session saves no compaction usage.
    const { agent: fresh } = await agentFrom(pool(), {});
    expect(fresh.snapshot().compactionUsage).toBeUndefined();
  });
});
