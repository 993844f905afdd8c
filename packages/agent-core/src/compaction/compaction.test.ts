import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextOverflowError, estimateTokens, type Message } from "@ollie/backends";
import type { MockReply, ScriptedCall } from "@ollie/backends/testing";
import { afterAll, describe, expect, it } from "vitest";
import { echoTool, ended, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { shellHooks } from "../hooks/shell-hooks.js";
import { COMPACTION_INSTRUCTIONS } from "./summary.js";

/** What a provider would count for the request (the scripted model reports 10 input tokens by default). */
const counted = (c: ScriptedCall) => ({ input: estimateTokens(c.messages, c.tools), output: 20 });

const dir = mkdtempSync(join(tmpdir(), "agent-core-compaction-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SUMMARY = {
  objective: "Survey the repository",
  planStep: "read the remaining files",
  constraints: ["do not change anything"],
  lastAction: "read file 5",
  nextDecision: "read file 6",
  decisions: ["the repository is a monorepo", "packages live in packages/"],
};

const isSummaryRequest = (c: ScriptedCall) => c.messages[0]?.content === COMPACTION_INSTRUCTIONS;

/** A model that reads file after file (big results) until `rounds`, and writes `summary` when asked. */
function surveyor(rounds: number, summary: string = JSON.stringify(SUMMARY)) {
  let n = 0;
  return (c: ScriptedCall): MockReply => {
    if (isSummaryRequest(c)) return { text: summary };
    n++;
    return n <= rounds
      ? {
          text: `Reading file ${n}.`,
          toolCalls: [{ name: "read", arguments: { n } }],
          usage: counted(c),
        }
      : { text: "Done surveying.", usage: counted(c) };
  };
}

const reader = (tier?: "warm" | "cold") =>
  echoTool("read", {
    ...(tier && { tier }),
    run: (args) => `contents of file ${args.n}\n${"line of text\n".repeat(120)}`,
  });

/** Every tool result answers a call of the assistant message before its run of results. */
function orphans(messages: readonly Message[]): string[] {
  const out: string[] = [];
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") open = new Set((m.toolCalls ?? []).map((c) => c.id));
    else if (m.role === "tool") {
      if (!open.has(m.toolCallId)) out.push(m.toolCallId);
    } else open = new Set();
  }
  return out;
}

describe("compaction", () => {
  it("past half of a small window: cold task state, warm decisions, the last messages hot, the old ones in the snapshot", async () => {
    const { agent, backend, of } = await scriptedAgent(surveyor(12), {
      tools: tools(reader()),
      contextLength: 8000,
      compaction: { snapshotDir: dir },
      safety: { replanRounds: 100 },
    });
    const outcome = await agent.submit("Survey the repository");
    expect(outcome.status).toBe("done");
    const compactions = of("compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const first = compactions[0]!;
    expect(first).toMatchObject({ trigger: "threshold" });
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore / 2);

    // The request right after the first compaction.
    const summaryAt = backend.calls.findIndex(isSummaryRequest);
    const before = backend.calls[summaryAt - 1]!.messages;
    const after = backend.calls[summaryAt + 1]!.messages;
    expect(after[0]!.role).toBe("system");
    const cold = after[1]!;
    expect(cold.role).toBe("user");
    expect(cold.content).toContain("[ollie] The conversation before this point was compacted.");
    expect(cold.content).toContain("Objective: Survey the repository");
    expect(cold.content).toContain("Constraints: do not change anything");
    expect(cold.content).toContain(
      "Decisions so far:\n- the repository is a monorepo\n- packages live in packages/",
    );
    const hot = after.slice(2);
    expect(hot.length).toBeGreaterThanOrEqual(8);
    expect(orphans(after)).toEqual([]);
    expect(hot[0]!.role).not.toBe("tool");
    expect(agent.taskState).toMatchObject({
      objective: "Survey the repository",
      constraints: ["do not change anything"],
    });

    // The snapshot holds the whole history as it was before.
    const lines = readFileSync(first.snapshot!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "compaction", trigger: "threshold" });
    const firstBlock = lines.slice(
      1,
      lines.findIndex((l, i) => i > 0 && l.type !== "message"),
    );
    expect(lines[0].messages).toBe(firstBlock.length);
    expect(firstBlock.map((l) => l.index)).toEqual(firstBlock.map((_, i) => i));
    // All the last request carried, then what came after it (the reply and its results).
    expect(firstBlock.slice(0, before.length - 1).map((l) => l.message)).toEqual(before.slice(1));
    expect(firstBlock.length).toBeGreaterThan(before.length - 1);
    const dropped = lines.find((l) => l.type === "dropped");
    expect(dropped.indices.length).toBe(first.dropped);
    expect(dropped.bytes).toBeGreaterThan(1000);
  });

  it("summarize warm results to a line, and keep a malformed summary from costing any history", async () => {
    const warm = await scriptedAgent(surveyor(12), {
      tools: tools(reader("warm")),
      contextLength: 8000,
      safety: { replanRounds: 100 },
    });
    await warm.agent.submit("Survey the repository");
    const at = warm.backend.calls.findIndex(isSummaryRequest);
    const after = warm.backend.calls[at + 1]!.messages;
    const results = after.filter((m) => m.role === "tool");
    expect(results.length).toBeGreaterThan(0);
    for (const r of results.slice(0, -1))
      expect(r.content).toMatch(/^\[collapsed: read returned [\d,]+ bytes/);

    const broken = await scriptedAgent(surveyor(12, "I think we are done here."), {
      tools: tools(reader()),
      contextLength: 8000,
      compaction: { maxAutoInRow: 1 },
      safety: { replanRounds: 100 },
    });
    await broken.agent.submit("Survey the repository");
    expect(broken.of("compaction")).toEqual([]);
    expect(broken.of("error").map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /^the compaction failed and the history was kept as it was: the compaction summary is unusable: there is no JSON object/,
      ),
    );
    expect(broken.agent.history.filter((m) => m.role === "tool")).toHaveLength(12);
  });

  it("stops compacting after 3 automatic compactions without a user prompt, and ends an overflow with a typed error", async () => {
    let requests = 0;
    const { agent, of } = await scriptedAgent(
      (c) => {
        if (isSummaryRequest(c)) return { text: JSON.stringify(SUMMARY) };
        requests++;
        return requests > 20
          ? { fault: { type: "context_overflow" } }
          : { toolCalls: [{ name: "read", arguments: { n: requests } }], usage: counted(c) };
      },
      {
        tools: tools(reader()),
        contextLength: 3000,
        compaction: { hotMessages: 2 },
        safety: { replanRounds: 100 },
      },
    );
    const outcome = await agent.submit("Survey the repository");
    const { error } = ended(outcome, "error");
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(String(error)).toContain("it was already compacted 3 times since the last prompt");
    expect(of("compaction").length).toBe(3);
  });

  it("with automatic compaction off, compacts only on command", async () => {
    const { agent, of } = await scriptedAgent(surveyor(12), {
      tools: tools(reader()),
      contextLength: 8000,
      compaction: { auto: false },
      safety: { replanRounds: 100 },
    });
    await agent.submit("Survey the repository");
    expect(of("compaction")).toEqual([]);
    expect(await agent.compact()).toBe(true);
    expect(of("compaction").map((e) => e.trigger)).toEqual(["command"]);
    expect((await agent.context()).tokens).toBeLessThan(4000);
  });

  it("lets preCompact refuse, hears postCompact, and runs the prompt commands again", async () => {
    let reloads = 0;
    const refusing = await scriptedAgent(surveyor(12), {
      tools: tools(reader()),
      contextLength: 8000,
      safety: { replanRounds: 100 },
      hooks: shellHooks({ preCompact: "echo 'not during a release' >&2; exit 2" }, { cwd: dir }),
    });
    await refusing.agent.submit("Survey the repository");
    expect(refusing.of("compaction")).toEqual([]);
    expect(refusing.of("info").map((e) => e.message)).toContain(
      "the preCompact hook prevented the compaction: not during a release",
    );

    const { agent, backend } = await scriptedAgent(surveyor(12), {
      tools: tools(reader()),
      contextLength: 8000,
      safety: { replanRounds: 100 },
      prompt: "version 0",
      reloadPrompt: async () => `version ${++reloads}`,
      hooks: shellHooks({ postCompact: "echo 'Remember: tabs, not spaces.'" }, { cwd: dir }),
    });
    await agent.submit("Survey the repository");
    const at = backend.calls.findIndex(isSummaryRequest);
    const after = backend.calls[at + 1]!.messages;
    expect(after[0]!.content).toMatch(/^version 1/);
    expect(after).toContainEqual({
      role: "user",
      content: "[ollie] postCompact hook:\nRemember: tabs, not spaces.",
    });
    expect(reloads).toBeGreaterThanOrEqual(1);
  });
});
