import { describe, expect, it, vi } from "vitest";
import { call, echoTool, scriptedAgent, tools, WAIT } from "../__fixtures__/agents.js";
import { INTERRUPTED_RESULT } from "../history/history.js";

describe("interrupting a turn", () => {
  it("during the stream keeps what was streamed, and the next turn starts from a valid history", async () => {
    const { agent, backend, of } = await scriptedAgent([
      { text: "Let me think about this for a while.", chunkSize: 1, delayMs: 5 },
      { text: "Fresh start." },
    ]);
    const turn = agent.submit("Tell me a story");
    await vi.waitFor(() => expect(of("assistant").length).toBeGreaterThanOrEqual(5), WAIT);
    expect(agent.interrupt("user pressed stop")).toBe(true);
    const outcome = await turn;
    const partial = agent.history[1];
    expect(partial?.role).toBe("assistant");
    expect("Let me think about this for a while.".startsWith(partial!.content)).toBe(true);
    expect(partial!.content.length).toBeGreaterThanOrEqual(5);
    // The outcome says what was cut short, as the history keeps it.
    expect(outcome).toEqual({
      status: "interrupted",
      partial: partial!.content,
      steps: 0,
      usage: expect.any(Object),
    });
    expect(agent.state).toBe("idle");

    expect((await agent.submit("Go on")).status).toBe("done");
    expect(backend.calls[1]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("during a slow tool fires the tool's signal and answers the call as interrupted", async () => {
    let toolSignal: AbortSignal | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = echoTool("build", {
      run: (_args, { signal }) => {
        toolSignal = signal;
        started();
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
    });
    const { agent, backend } = await scriptedAgent([call("build", { target: "all" }), { text: "ok" }], {
      tools: tools(slow),
    });
    const turn = agent.submit("Build it");
    await running;
    expect(agent.state).toBe("calling: build");
    agent.interrupt("taking too long");
    // Nothing was streamed when the interrupt came: the reply before it is complete, and is the outcome's.
    expect(await turn).toMatchObject({
      status: "interrupted",
      partial: "",
      reply: { toolCalls: [{ name: "build" }] },
    });
    expect(toolSignal?.aborted).toBe(true);
    expect(agent.history.at(-1)).toEqual({
      role: "tool",
      toolCallId: "call_scripted_0",
      name: "build",
      content: INTERRUPTED_RESULT,
      isError: true,
    });

    await agent.submit("Never mind");
    expect(backend.calls[1]!.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
  });

  it("reports whether there was a turn to stop", async () => {
    const { agent } = await scriptedAgent([]);
    expect(agent.interrupt()).toBe(false);
  });
});
