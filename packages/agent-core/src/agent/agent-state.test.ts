import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools, untilState } from "../__fixtures__/agents.js";
import type { AgentState } from "../events/agent-events.js";
import { type AgentHooks, CONTINUE, type HookEvent } from "../hooks/agent-hooks.js";
import { shellHooks } from "../hooks/shell-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-agent-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A promise and what settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** In-process hooks: each event named in `held` waits for its gate; every other event continues at once. */
function heldHooks(held: Partial<Record<HookEvent | "turnError", Promise<void>>>): AgentHooks {
  return {
    handles: (event) => event in held,
    run: async (event) => {
      await held[event];
      return CONTINUE;
    },
    turnError: async () => {
      await held.turnError;
      return true;
    },
  };
}

const earlier = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 ? ("assistant" as const) : ("user" as const),
  content: `${i}: ${"words ".repeat(100)}`,
}));

describe("an agent's state", () => {
  it("shows a shell preTurn hook while it runs, busy all along, and skips events that have no hook", async () => {
    // The hook blocks on a fifo the test opens once it has seen the state: its time is the turn's, not idle.
    const fifo = join(dir, "release");
    await execa("mkfifo", [fifo]);
    const { agent, of, events } = await scriptedAgent([call("read"), { text: "done" }], {
      tools: tools(echoTool("read")),
      hooks: shellHooks({ preTurn: `read -r line < ${fifo}` }, { cwd: dir, env: { PATH: process.env.PATH } }),
    });
    const turn = agent.submit("go");
    await untilState(agent, "hook: preTurn");
    expect(agent.busy).toBe(true);
    expect(of("user")).toEqual([]);
    await writeFile(fifo, "go on\n");
    expect((await turn).status).toBe("done");
    expect(of("state").map((e) => e.state)).toEqual([
      "hook: preTurn",
      "thinking",
      "calling: read",
      "thinking",
      "idle",
    ]);
    // Whoever sees idle sees a finished turn.
    expect(events.slice(-2).map((e) => e.type)).toEqual(["turn", "state"]);
    expect(agent.busy).toBe(false);
  });

  it("shows the postTurn hook after the turn's idle, and the agent stays busy until it ends", async () => {
    const post = gate();
    const { agent, of } = await scriptedAgent([{ text: "done" }], {
      hooks: heldHooks({ postTurn: post.opened }),
    });
    const turn = agent.submit("go");
    await untilState(agent, "hook: postTurn");
    expect(of("turn")).toHaveLength(1);
    expect(agent.busy).toBe(true);
    post.open();
    await turn;
    expect(of("state").map((e) => e.state)).toEqual(["thinking", "idle", "hook: postTurn", "idle"]);
    expect(agent.busy).toBe(false);
  });

  it("goes back to the calls running together once each of their preTool hooks has ended, in any order", async () => {
    const gates = { a: gate(), b: gate() };
    const read = echoTool("read", { readSafe: true });
    const { agent, of } = await scriptedAgent(
      [
        {
          text: "",
          toolCalls: [
            { name: "read", arguments: { path: "a" } },
            { name: "read", arguments: { path: "b" } },
          ],
        },
        { text: "done" },
      ],
      {
        tools: tools(read),
        hooks: {
          handles: (event) => event === "preTool",
          run: async (_event, payload) => {
            await gates[(payload.args as { path: "a" | "b" }).path].opened;
            return CONTINUE;
          },
        },
      },
    );
    const turn = agent.submit("go");
    await untilState(agent, "hook: preTool");
    gates.b.open();
    // One hook still runs: its state stays.
    await new Promise((resolve) => setImmediate(resolve));
    expect(agent.state).toBe("hook: preTool");
    gates.a.open();
    await turn;
    expect(of("state").map((e) => e.state)).toEqual([
      "thinking",
      "calling: read, read",
      "hook: preTool",
      "calling: read, read",
      "thinking",
      "idle",
    ]);
  });

  it("shows a compaction, its hooks and its prompt commands, each while it runs", async () => {
    const reload = gate();
    const seen: AgentState[] = [];
    const { agent, of } = await scriptedAgent([{ text: '{"objective":"talk","decisions":[]}' }], {
      history: earlier,
      hooks: heldHooks({ preCompact: undefined, postCompact: undefined }),
      reloadPrompt: async () => {
        seen.push(agent.state);
        await reload.opened;
        return "You are a test agent, again.";
      },
    });
    const compacting = agent.compact();
    await untilState(agent, "prompt commands");
    expect(agent.busy).toBe(true);
    reload.open();
    expect(await compacting).toBe(true);
    expect(seen).toEqual(["prompt commands"]);
    expect(of("state").map((e) => e.state)).toEqual([
      "compacting",
      "hook: preCompact",
      "compacting",
      "prompt commands",
      "compacting",
      "hook: postCompact",
      "compacting",
      "idle",
    ]);
    expect(agent.busy).toBe(false);
  });

  it("shows the turnError hook over the failed request", async () => {
    const error = gate();
    const { agent, of } = await scriptedAgent([{ fault: { type: "rate_limit", retryAfter: 60 } }], {
      hooks: heldHooks({ turnError: error.opened }),
    });
    const turn = agent.submit("go");
    await untilState(agent, "hook: turnError");
    error.open();
    expect((await turn).status).toBe("handled");
    expect(of("state").map((e) => e.state)).toEqual(["thinking", "hook: turnError", "thinking", "idle"]);
  });
});
