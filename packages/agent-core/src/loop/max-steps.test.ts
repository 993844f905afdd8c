import { AnthropicBackend, type Message } from "@ollie/backends";
import { MockLlmServer, type RecordedRequest } from "@ollie/backends/testing";
import { afterEach, describe, expect, it } from "vitest";
import { echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";

/** Calls in `history` with no result after them (before the next assistant message). */
function unanswered(history: readonly Message[]): string[] {
  const open = new Set<string>();
  const missing: string[] = [];
  for (const m of history) {
    if (m.role === "assistant") {
      missing.push(...open);
      open.clear();
      for (const c of m.toolCalls ?? []) open.add(c.id);
    } else if (m.role === "tool") open.delete(m.toolCallId);
  }
  return [...missing, ...open];
}

/** A tool that counts its runs. */
function countingTool() {
  const counter = { runs: 0 };
  const tool = echoTool("ls", {
    run: (args) => {
      counter.runs++;
      return `ls ${JSON.stringify(args)}`;
    },
  });
  return { counter, set: tools(tool) };
}

describe("the step limit", () => {
  it("is hard: with maxSteps 6, a model that keeps calling tools gets 7 requests, 6 rounds run, and the 7th call ends the turn unrun", async () => {
    const { counter, set } = countingTool();
    let n = 0;
    const { agent, backend, of } = await scriptedAgent(
      () => ({ text: `round ${n}`, toolCalls: [{ id: `c${n}`, name: "ls", arguments: { n: n++ } }] }),
      { tools: set, maxSteps: 6 },
    );
    const outcome = await agent.submit("List everything");
    expect(outcome).toMatchObject({
      status: "maxsteps",
      steps: 6,
      maxSteps: 6,
      reply: { content: "round 6" },
    });
    expect(backend.calls).toHaveLength(7);
    expect(counter.runs).toBe(6);
    expect(of("maxsteps")).toEqual([{ type: "maxsteps", steps: 6 }]);

    // The last request still offered the tools, after the nudge.
    const last = backend.calls[6]!;
    expect(last.tools.map((t) => t.name)).toEqual(["ls"]);
    expect(last.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringMatching(/^\[ollie\] This turn has used all 6 of its steps\./),
    });

    // The refused call has its result, so the history is a valid request as it stands.
    const refused = agent.history.at(-1)!;
    expect(refused).toEqual({
      role: "tool",
      toolCallId: "c6",
      name: "ls",
      content: "ls was not run: this turn has used all 6 of its steps, and it ends here.",
      isError: true,
    });
    expect(of("tool").at(-1)!.result).toEqual(refused);
    expect(of("call")).toHaveLength(7);
    expect(unanswered(agent.history)).toEqual([]);
    expect(agent.state).toBe("idle");
  });

  it("answers every call of a last reply that makes several", async () => {
    const { counter, set } = countingTool();
    const { agent, backend } = await scriptedAgent(
      (c) => ({
        toolCalls: [
          { name: "ls", arguments: { a: c.messages.length } },
          { name: "ls", arguments: { b: c.messages.length } },
        ],
      }),
      { tools: set, maxSteps: 2 },
    );
    expect((await agent.submit("go")).status).toBe("maxsteps");
    expect(backend.calls).toHaveLength(3);
    expect(counter.runs).toBe(4);
    expect(agent.history.slice(-2).map((m) => m.role === "tool" && m.content)).toEqual([
      "ls was not run: this turn has used all 2 of its steps, and it ends here.",
      "ls was not run: this turn has used all 2 of its steps, and it ends here.",
    ]);
    expect(unanswered(agent.history)).toEqual([]);
  });

  it("ends as maxsteps with the model's answer when it answers at the limit", async () => {
    const { counter, set } = countingTool();
    let n = 0;
    const { agent, backend } = await scriptedAgent(
      (c) =>
        c.messages.at(-1)?.content.startsWith("[ollie] This turn has used all")
          ? { text: "Here is what I found." }
          : { toolCalls: [{ name: "ls", arguments: { n: n++ } }] },
      { tools: set, maxSteps: 6 },
    );
    const outcome = await agent.submit("go");
    expect(outcome).toMatchObject({
      status: "maxsteps",
      steps: 6,
      maxSteps: 6,
      reply: { content: "Here is what I found." },
    });
    expect(backend.calls).toHaveLength(7);
    expect(counter.runs).toBe(6);
  });

  it("starts again with each turn", async () => {
    const { counter, set } = countingTool();
    let n = 0;
    const { agent, backend } = await scriptedAgent(
      () => ({ toolCalls: [{ name: "ls", arguments: { n: n++ } }] }),
      { tools: set, maxSteps: 3 },
    );
    expect((await agent.submit("one")).status).toBe("maxsteps");
    expect((await agent.submit("two")).status).toBe("maxsteps");
    expect(backend.calls).toHaveLength(8);
    expect(counter.runs).toBe(6);
  });
});

describe("the step limit over the wire (Anthropic)", () => {
  let server: MockLlmServer | undefined;
  afterEach(async () => server?.close());

  type Block = { type: string; id?: string; tool_use_id?: string };
  type Body = { tools?: unknown[]; messages: Array<{ role: string; content: Block[] }> };
  const chats = () => server!.requests.filter((r: RecordedRequest) => r.method === "POST");

  /** Anthropic's rule: every tool_use is answered by a tool_result in the next (user) turn. */
  function unansweredOnTheWire(body: Body): string[] {
    const missing: string[] = [];
    for (const [i, turn] of body.messages.entries()) {
      const asked = turn.content.filter((b) => b.type === "tool_use").map((b) => b.id!);
      if (asked.length === 0) continue;
      const next = body.messages[i + 1];
      const answered = new Set(
        next?.role === "user"
          ? next.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
          : [],
      );
      missing.push(...asked.filter((id) => !answered.has(id)));
    }
    return missing;
  }

  it("sends 7 requests for maxSteps 6, each with the tools, and the next turn's request is valid", async () => {
    const { counter, set } = countingTool();
    let n = 0;
    const replies = (request: RecordedRequest) => {
      const body = request.body as Body;
      const said = body.messages
        .at(-1)
        ?.content.map((b) => (b as { text?: string }).text ?? "")
        .join("");
      return said === "And now?"
        ? { text: "Six listings so far." }
        : { toolCalls: [{ id: `toolu_${n}`, name: "ls", arguments: { n: n++ } }] };
    };
    server = await MockLlmServer.start({ replies });
    const agent = await Agent.create({
      backend: new AnthropicBackend({ baseUrl: server.baseUrl("anthropic"), model: "claude-sonnet-4-5" }),
      tools: set,
      prompt: "You list files.",
      maxSteps: 6,
      contextLength: 200_000,
    });
    const outcome = await agent.submit("List everything");
    expect(outcome).toMatchObject({ status: "maxsteps", steps: 6 });
    expect(chats()).toHaveLength(7);
    expect(counter.runs).toBe(6);
    for (const request of chats()) expect((request.body as Body).tools).toHaveLength(1);

    expect((await agent.submit("And now?")).status).toBe("done");
    expect(chats()).toHaveLength(8);
    const body = chats()[7]!.body as Body;
    expect(body.messages.flatMap((t) => t.content).filter((b) => b.type === "tool_use")).toHaveLength(7);
    expect(unansweredOnTheWire(body)).toEqual([]);
  });
});
