import { describe, expect, it } from "vitest";
import { call, echoTool, heldTurn, scriptedAgent, tools } from "../__fixtures__/agents.js";

/** What the model read after the tool result in the request that followed the held round. */
const injectedIn = (messages: ReadonlyArray<{ role: string; content: string }>) =>
  messages.slice(messages.findIndex((m) => m.role === "tool") + 1).map((m) => m.content);

describe("inject and injectRewrite", () => {
  it("inject adds to what is pending: both texts reach the model, in order", async () => {
    const { agent, backend, turn, release, of } = await heldTurn();
    expect(agent.inject("also check the tests")).toEqual({ injected: true });
    expect(agent.inject("and the docs")).toEqual({ injected: true });
    release();
    expect((await turn).status).toBe("done");
    expect(backend.calls).toHaveLength(2);
    expect(injectedIn(backend.calls[1]!.messages)).toEqual(["also check the tests", "and the docs"]);
    expect(of("user").map((e) => [e.from, e.text])).toEqual([
      ["user", "go"],
      ["inject", "also check the tests"],
      ["inject", "and the docs"],
    ]);
  });

  it("injectRewrite replaces what is pending: the model sees only the rewrite", async () => {
    const { agent, backend, turn, release, of } = await heldTurn();
    agent.inject("check the tests");
    agent.inject("and the docs");
    expect(agent.injectRewrite("no: check the benchmarks")).toEqual({
      injected: true,
      replaced: ["check the tests", "and the docs"],
    });
    release();
    expect((await turn).status).toBe("done");
    expect(backend.calls).toHaveLength(2);
    expect(injectedIn(backend.calls[1]!.messages)).toEqual(["no: check the benchmarks"]);
    expect(of("user").map((e) => e.text)).toEqual(["go", "no: check the benchmarks"]);
  });

  it("injectRewrite with nothing pending injects; an inject after it adds to it", async () => {
    const { agent, backend, turn, release } = await heldTurn();
    expect(agent.injectRewrite("first")).toEqual({ injected: true, replaced: [] });
    agent.inject("second");
    release();
    await turn;
    expect(injectedIn(backend.calls[1]!.messages)).toEqual(["first", "second"]);
  });

  it("injectRewrite leaves what the turn has already taken", async () => {
    // Each run of `wait` hands the function that finishes it to whoever awaits `started()`.
    const finishers: Array<() => void> = [];
    let onStart = () => {};
    const started = async () => {
      while (finishers.length === 0) await new Promise<void>((resolve) => (onStart = resolve));
      return finishers.shift()!;
    };
    const set = tools(
      echoTool("wait", {
        run: () =>
          new Promise<string>((resolve) => {
            finishers.push(() => resolve("waited"));
            onStart();
          }),
      }),
    );
    const { agent, backend } = await scriptedAgent([call("wait"), call("wait"), { text: "ok" }], {
      tools: set,
    });
    const turn = agent.submit("go");
    const first = await started();
    agent.inject("taken by step 2");
    first();
    // The second round of calls runs: the injection above went into the history before its request.
    const second = await started();
    expect(agent.injectRewrite("for step 3")).toEqual({ injected: true, replaced: [] });
    second();
    await turn;
    expect(backend.calls).toHaveLength(3);
    const contents = backend.calls[2]!.messages.map((m) => m.content);
    expect(contents.filter((c) => c === "taken by step 2")).toHaveLength(1);
    expect(contents.at(-1)).toBe("for step 3");
  });

  it("with no turn running, both submit the text as a prompt", async () => {
    const { agent, backend } = await scriptedAgent([{ text: "one" }, { text: "two" }]);
    const first = agent.inject("hello");
    expect("position" in first && (await first).status).toBe("done");
    const second = agent.injectRewrite("hello again");
    expect("position" in second && (await second).status).toBe("done");
    expect(backend.calls.map((c) => c.messages.at(-1)!.content)).toEqual(["hello", "hello again"]);
  });
});
