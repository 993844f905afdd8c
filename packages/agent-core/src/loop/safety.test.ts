import type { MockReply, ScriptedCall } from "@ollie/backends/testing";
import { describe, expect, it } from "vitest";
import { echoTool, ended, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { type SafetyLimits, SafetyStopError } from "./safety.js";

/** The loop's own messages in a request, without their prefix. */
const nudgesIn = (request: ScriptedCall) =>
  request.messages
    .filter((m) => m.role === "user" && m.content.startsWith("[ollie] "))
    .map((m) => m.content.slice(8));

/** An agent whose model calls `next(round)` forever (or answers when told it has used all its steps). */
async function looping(
  next: (round: number) => MockReply,
  set = tools(),
  safety: Partial<SafetyLimits> = {},
  maxSteps = 50,
) {
  let round = 0;
  return scriptedAgent(
    (c) =>
      nudgesIn(c).some((n) => n.startsWith("This turn has used all"))
        ? { text: "Giving up: here is what I have." }
        : next(round++),
    { tools: set, safety, maxSteps, guidance: true },
  );
}

describe("safety checks", () => {
  it("send the model nothing of their own without guidance (a bare Agent): 20 rounds, no nudge, no task state", async () => {
    const run = async (guidance: boolean) => {
      let round = 0;
      const { agent, backend } = await scriptedAgent(
        () =>
          round < 20 ? { toolCalls: [{ name: "ls", arguments: { dir: `d${round++}` } }] } : { text: "Done." },
        { tools: tools(echoTool("ls")), ...(guidance && { guidance }) },
      );
      expect((await agent.submit("go")).status).toBe("done");
      expect(backend.calls).toHaveLength(21);
      // Each request carries the whole history: the last one holds whatever the loop said.
      return nudgesIn(backend.calls.at(-1)!);
    };
    expect(await run(false)).toEqual([]);
    // Asked for, the same run gets a plan nudge every 8 rounds and the task state every 10.
    const guided = await run(true);
    expect(guided.filter((n) => n.startsWith("8 rounds without a plan"))).toHaveLength(2);
    expect(guided.filter((n) => n.startsWith("[task state]\nObjective: go"))).toHaveLength(2);
  });

  it("nudge after 5 rounds whose calls all failed, and end the turn at 10", async () => {
    const fail = echoTool("fail", {
      run: () => {
        throw new Error("no such file");
      },
    });
    const { agent, backend } = await looping(
      (n) => ({ toolCalls: [{ name: "fail", arguments: { n } }] }),
      tools(fail),
    );
    const outcome = await agent.submit("go");
    const { error } = ended(outcome, "error");
    expect(error).toBeInstanceOf(SafetyStopError);
    expect((error as SafetyStopError).reason).toContain("the last 10 rounds of tool calls all failed");
    expect(backend.calls).toHaveLength(10);
    expect(nudgesIn(backend.calls[4]!)).toEqual([]);
    expect(nudgesIn(backend.calls[5]!)).toEqual([
      expect.stringMatching(/^The last 5 rounds of tool calls all failed/),
    ]);
  });

  it("nudge after the same call 3 times in a row, and end the turn at 6", async () => {
    const { agent, backend } = await looping(
      () => ({ toolCalls: [{ name: "ls", arguments: { dir: "." } }] }),
      tools(echoTool("ls")),
      {
        stallRounds: 100,
      },
    );
    const outcome = await agent.submit("go");
    expect(String(ended(outcome, "error").error)).toContain(
      "ls was called 6 times in a row with the same arguments",
    );
    expect(backend.calls).toHaveLength(6);
    expect(nudgesIn(backend.calls[3]!)).toEqual([
      "You have called ls with the same arguments 3 times in a row. Its result will not change: use what it returned, or do something else.",
    ]);
  });

  it("count arguments as equal whatever the order of their keys", async () => {
    const { agent, backend } = await looping(
      (n) => ({ toolCalls: [{ name: "ls", arguments: n % 2 ? { a: 1, b: 2 } : { b: 2, a: 1 } }] }),
      tools(echoTool("ls")),
      { stallRounds: 100 },
    );
    await agent.submit("go");
    expect(backend.calls).toHaveLength(6);
  });

  it("ask for a plan after 8 rounds without a PLAN: block, and not when there is one", async () => {
    const { agent, backend } = await looping(
      (n) => (n < 8 ? { toolCalls: [{ name: "ls", arguments: { n } }] } : { text: "done" }),
      tools(echoTool("ls")),
    );
    await agent.submit("go");
    expect(nudgesIn(backend.calls[8]!)).toEqual([expect.stringMatching(/^8 rounds without a plan/)]);

    const planned = await looping(
      (n) =>
        n < 8
          ? { text: "PLAN:\n- [ ] look around", toolCalls: [{ name: "ls", arguments: { n } }] }
          : { text: "done" },
      tools(echoTool("ls")),
    );
    await planned.agent.submit("go");
    expect(planned.backend.calls.flatMap(nudgesIn)).toEqual([]);
    expect(planned.agent.taskState.planStep).toBe("look around");
  });

  it("say the agent is stuck after 5 rounds with the same action and result", async () => {
    const { agent, backend } = await looping(
      (n) => ({ toolCalls: [{ name: "ls", arguments: { dir: "." } }, ...(n > 100 ? [] : [])] }),
      tools(echoTool("ls")),
      { repeatNudgeCalls: 100, repeatAbortCalls: 100, errorAbortRounds: 100 },
      7,
    );
    await agent.submit("go");
    expect(nudgesIn(backend.calls[5]!)).toEqual([
      expect.stringMatching(/^The last 5 rounds did the same thing with the same result \(ls/),
    ]);
  });

  it("put the task state back in front of the model every N rounds", async () => {
    const { agent, backend } = await looping(
      (n) =>
        n < 4 ? { text: `step ${n}`, toolCalls: [{ name: "ls", arguments: { n } }] } : { text: "done" },
      tools(echoTool("ls")),
      { taskStateEveryRounds: 2 },
    );
    await agent.submit("Tidy the repository");
    expect(nudgesIn(backend.calls[2]!)).toEqual([
      [
        "[task state]",
        "Objective: Tidy the repository",
        'Last action: ls({"n":1}) → ls {"n":1}',
        "Next decision: step 1",
      ].join("\n"),
    ]);
  });

  it("at the step limit, ask for an answer and end the turn there", async () => {
    const { agent, backend, of } = await looping(
      (n) => ({ toolCalls: [{ name: "ls", arguments: { n } }] }),
      tools(echoTool("ls")),
      {},
      3,
    );
    const outcome = await agent.submit("go");
    expect(outcome).toMatchObject({
      status: "maxsteps",
      steps: 3,
      reply: { content: "Giving up: here is what I have." },
    });
    expect(of("maxsteps")).toEqual([{ type: "maxsteps", steps: 3 }]);
    const last = backend.calls.at(-1)!;
    expect(backend.calls).toHaveLength(4);
    // The tools are still offered (a history with calls and no tools is refused by some providers).
    expect(last.tools.map((t) => t.name)).toEqual(["ls"]);
    expect(nudgesIn(last)).toEqual([expect.stringMatching(/^This turn has used all 3 of its steps/)]);
  });
});
