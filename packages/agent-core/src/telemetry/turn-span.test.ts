import { context, type Link, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { installOtel, isChildOf, type Otel } from "../__fixtures__/otel.js";
import type { AgentHooks } from "../hooks/agent-hooks.js";

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

describe("a turn's invoke_agent span", () => {
  it("holds the turn's requests and calls, and says who ran it, how it ended and what it used", async () => {
    const { agent } = await scriptedAgent(
      [
        { ...call("read", { path: "a" }), usage: { input: 100, output: 7, cachedInput: 40, cost: 0.25 } },
        { text: "Read.", usage: { input: 150, output: 3, cacheCreation: 20, cost: 0.5 } },
      ],
      { tools: tools(echoTool("read")), profile: "coder", name: "glenda", id: "u-glenda" },
    );
    expect((await agent.submit("Read a")).status).toBe("done");

    const turn = otel.span("invoke_agent coder");
    expect(turn.kind).toBe(SpanKind.INTERNAL);
    expect(turn.parentSpanContext).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "scripted",
      "gen_ai.agent.name": "coder",
      "gen_ai.conversation.id": agent.sessionId,
      "gen_ai.request.model": "scripted-model",
      "ollie.agent": "glenda",
      "ollie.agent.id": "u-glenda",
      "ollie.backend": "scripted",
      "ollie.turn.status": "done",
      "ollie.turn.steps": 1,
      "gen_ai.usage.input_tokens": 250,
      "gen_ai.usage.output_tokens": 10,
      "gen_ai.usage.cache_read.input_tokens": 40,
      "gen_ai.usage.cache_creation.input_tokens": 20,
      "ollie.cost.usd": 0.75,
    });
    expect(turn.attributes["error.type"]).toBeUndefined();
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const chats = otel.spans().filter((s) => s.name === "chat scripted-model");
    expect(chats).toHaveLength(2);
    const tool = otel.span("execute_tool read");
    for (const child of [...chats, tool]) expect(isChildOf(child, turn)).toBe(true);
    // The turn ends last, after everything it holds.
    expect(otel.spans().at(-1)).toBe(turn);
  });

  it("names its span to the host: the running turn's while it runs, and each submission's", async () => {
    let seenWhileRunning: string | undefined;
    const { agent } = await scriptedAgent([call("probe", {}), { text: "Probed." }], {
      tools: tools(
        echoTool("probe", {
          run: () => {
            seenWhileRunning = agent.runningTurnSpan?.spanId;
            return "ok";
          },
        }),
      ),
      profile: "coder",
    });
    const submission = agent.submit("Probe");
    await submission;
    const turn = otel.span("invoke_agent coder");
    expect(seenWhileRunning).toBe(turn.spanContext().spanId);
    expect(submission.turnSpan?.spanId).toBe(turn.spanContext().spanId);
    expect(agent.runningTurnSpan).toBeUndefined();
  });

  it("says why a failed turn failed, as error.type and an error status", async () => {
    const { agent } = await scriptedAgent([{ fault: { type: "auth" } }], { profile: "coder" });
    expect((await agent.submit("Hi")).status).toBe("error");
    const turn = otel.span("invoke_agent coder");
    expect(turn.attributes).toMatchObject({ "ollie.turn.status": "error", "error.type": "AuthError" });
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("is named for the operation alone when the agent runs no profile", async () => {
    const { agent } = await scriptedAgent([{ text: "Hi." }]);
    await agent.submit("Hi");
    const turn = otel.span("invoke_agent");
    expect(turn.attributes["gen_ai.agent.name"]).toBeUndefined();
  });

  it("is a child of the context active when the prompt was submitted, not when its turn runs", async () => {
    const { agent } = await scriptedAgent([{ text: "one", delayMs: 5 }, { text: "two" }]);
    const tracer = trace.getTracer("test");
    const first = tracer.startSpan("first asker");
    const second = tracer.startSpan("second asker");
    const turns = [
      context.with(trace.setSpan(ROOT_CONTEXT, first), () => agent.submit("one")),
      // Queued behind the first: it runs in the first one's drain, long after this context is gone.
      context.with(trace.setSpan(ROOT_CONTEXT, second), () => agent.submit("two")),
    ];
    await Promise.all(turns);
    const [one, two] = otel.spans().filter((s) => s.name === "invoke_agent");
    expect(isChildOf(one!, first.spanContext())).toBe(true);
    expect(isChildOf(two!, second.spanContext())).toBe(true);
  });

  it("takes a remote parent from a W3C carrier, and keeps the links it is given", async () => {
    const { agent } = await scriptedAgent([{ text: "Done." }]);
    const remote = {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "ollie=t61rcWkgMzE",
    };
    const callback = trace.getTracer("test").startSpan("child's turn");
    const link: Link = { context: callback.spanContext(), attributes: { "ollie.link": "callback" } };
    await agent.submit("go", { parent: remote, links: [link] });
    const turn = otel.span("invoke_agent");
    expect(turn.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(turn.parentSpanContext).toMatchObject({ spanId: "b7ad6b7169203331", isRemote: true });
    expect(turn.parentSpanContext?.traceState?.get("ollie")).toBe("t61rcWkgMzE");
    expect(turn.links).toEqual([link]);
  });

  it("is the root of a trace of its own under an invalid carrier", async () => {
    const { agent } = await scriptedAgent([{ text: "Done." }]);
    await agent.submit("go", { parent: { traceparent: "00-not-a-parent" } });
    expect(otel.span("invoke_agent").parentSpanContext).toBeUndefined();
  });

  it("takes a Context as the parent as well", async () => {
    const { agent } = await scriptedAgent([{ text: "Done." }]);
    const asker = trace.getTracer("test").startSpan("asker");
    await agent.submit("go", { parent: trace.setSpan(ROOT_CONTEXT, asker) });
    expect(isChildOf(otel.span("invoke_agent"), asker.spanContext())).toBe(true);
  });

  it("covers the postTurn hook's continuations: their requests inside, steps and usage summed", async () => {
    let blocks = 0;
    const hooks: AgentHooks = {
      run: async (event) =>
        event === "postTurn" && blocks++ === 0
          ? { action: "block", output: "Check again.", warnings: [] }
          : { action: "continue", output: "", warnings: [] },
    };
    const { agent } = await scriptedAgent(
      [call("read"), { text: "First." }, call("read"), { text: "Checked." }],
      { tools: tools(echoTool("read")), hooks },
    );
    await agent.submit("go");
    const turn = otel.span("invoke_agent");
    expect(turn.attributes).toMatchObject({ "ollie.turn.steps": 2, "gen_ai.usage.input_tokens": 40 });
    const inside = otel.spans().filter((s) => s.name.startsWith("chat ") && isChildOf(s, turn));
    expect(inside).toHaveLength(4);
    const posts = otel.spans().filter((s) => s.name === "ollie.hook postTurn");
    expect(posts.map((s) => s.attributes["ollie.hook.action"])).toEqual(["block", "continue"]);
    for (const post of posts) expect(isChildOf(post, turn)).toBe(true);
  });

  it("notes the safety monitor's stop and the last step as events", async () => {
    const { agent } = await scriptedAgent(
      (c) =>
        c.messages.some((m) => m.role === "user" && m.content.includes("used all"))
          ? { text: "Stopping." }
          : call("ls", { dir: "." }),
      { tools: tools(echoTool("ls")), safety: { repeatNudgeCalls: 2, repeatAbortCalls: 3 }, guidance: true },
    );
    expect((await agent.submit("go")).status).toBe("error");
    const turn = otel.span("invoke_agent");
    expect(turn.attributes["error.type"]).toBe("SafetyStopError");
    const events = turn.events.map((e) => e.name);
    expect(events).toEqual(["ollie.safety.nudge", "ollie.safety.stop"]);
    expect(turn.events[1]!.attributes).toEqual({
      "ollie.safety.reason": "ls was called 3 times in a row with the same arguments",
    });
    // The nudge's words quote what the agent did: only with contents captured.
    expect(turn.events[0]!.attributes).toEqual({});

    const limited = await scriptedAgent(
      (c) =>
        c.messages.some((m) => m.role === "user" && m.content.includes("used all"))
          ? { text: "Stopping." }
          : call("ls", { dir: `${c.messages.length}` }),
      { tools: tools(echoTool("ls")), maxSteps: 2 },
    );
    expect((await limited.agent.submit("go")).status).toBe("maxsteps");
    const last = otel
      .spans()
      .filter((s) => s.name === "invoke_agent")
      .at(-1)!;
    expect(last.events.map((e) => [e.name, e.attributes])).toEqual([
      ["ollie.maxsteps", { "ollie.turn.steps": 2 }],
    ]);
  });

  it("records the turn's duration by profile and outcome, without session or agent names", async () => {
    const { agent } = await scriptedAgent([{ text: "Hi." }, { fault: { type: "auth" } }], {
      profile: "coder",
    });
    await agent.submit("one");
    await agent.submit("two");
    const metric = (await otel.metrics()).get("gen_ai.invoke_agent.duration");
    expect(metric?.descriptor).toMatchObject({ unit: "s" });
    const points = metric?.dataPoints ?? [];
    expect(points.map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.agent.name": "coder",
      },
      {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.agent.name": "coder",
        "error.type": "AuthError",
      },
    ]);
  });
});
