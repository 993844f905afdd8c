import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie, untilTurns } from "./harness.js";

type Message = { role: string; content?: string | null };

/**
 * Agents that would go on without end: two that answer every prompt by prompting the other, and one that
 * spawns a child for every prompt. A person's prompt starts each; the limits stop them.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  if (last.role === "tool") return { text: "Passed it on." };
  const text = String(last.content ?? "");
  if (text.includes("spawn a child"))
    return {
      toolCalls: [{ name: "subagent_spawn", arguments: { task: "Wait.", name: `child-${messages.length}` } }],
    };
  // Ping-pong: the owner names the other agent; an agent's ping names its sender in its stamp.
  const other = /^ping (\S+)/.exec(text)?.[1] ?? /^\[from=([^\]]+)\]\nping$/.exec(text)?.[1];
  if (!other) return { text: "Noted." };
  const [session, agent] = other.split(".");
  const path = `session/${session}/agent/${agent}/prompt`;
  return { toolCalls: [{ name: "client_9p", arguments: { op: "write", path, data: "ping" } }] };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-agent-limits-", {
    mock: { replies: model },
    args: ["--max-hops", "3", "--max-children", "2"],
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

describe("agents prompting agents", () => {
  it("stop after the hop limit, with an audit line, and go on when a person prompts again", async () => {
    // The orchestrator profile is one that has client_9p, to write other agents' files with.
    const a = await o.create(`agent=orchestrator cwd=${o.work} name=a`);
    const b = await o.create(`agent=orchestrator cwd=${o.work} name=b`);
    const [agentA, agentB] = [`session/${a}/agent/main`, `session/${b}/agent/main`];
    await o.fsys.writeFile(`${agentA}/prompt`, `ping ${b}.main`);
    // Hops: the owner's prompt to a is 0; a → b 1, b → a 2, a → b 3; b → a would be 4: refused.
    await untilTurns(o, agentB, 2);
    await untilTurns(o, agentA, 2);
    const log = await o.logged(/refused a prompt from \S+ to \S+: agent-to-agent hop limit 3/);
    expect(log).toMatch(
      new RegExp(
        `WARN  olliesrv\\[audit\\]: refused a prompt from ${b}\\.main to ${a}\\.main: agent-to-agent hop limit 3 reached`,
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await o.read(`${agentA}/turns`)).toBe("2\n");
    expect(await o.read(`${agentB}/turns`)).toBe("2\n");
    // b's model is told why its prompt did not go through.
    const history = JSON.parse(await o.read(`${agentB}/context`)) as Array<{ role: string; content: string }>;
    expect(history.filter((m) => m.role === "tool").at(-1)?.content).toMatch(/hop limit 3 reached/);
    // A person's prompt starts the count again.
    await o.fsys.writeFile(`${agentA}/prompt`, `ping ${b}.main`);
    await untilTurns(o, agentB, 3);
  });

  it("may spawn only so many children at once", async () => {
    const parent = await o.create(`agent=orchestrator cwd=${o.work} name=spawner`);
    const agent = `session/${parent}/agent/main`;
    // Each prompt spawns one child; the third is one too many. (Children's callbacks make turns of their own.)
    for (let i = 0; i < 3; i++) await o.fsys.writeFile(`${agent}/prompt`, "spawn a child");
    expect(await o.logged(/\[audit\]: refused spawn by \S+: child limit 2 reached/)).toMatch(
      new RegExp(
        `WARN  olliesrv\\[audit\\]: refused spawn by ${parent}\\.main: child limit 2 reached: ${parent}\\.main has 2 sessions`,
      ),
    );
    const children = (await o.read("session/idx")).split("\n").filter((l) => l.includes("child-"));
    expect(children).toHaveLength(2);
  });
});
