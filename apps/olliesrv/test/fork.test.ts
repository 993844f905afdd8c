import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INTERRUPTED_RESULT } from "@ollie/agent-core/sessions";
import { ORDWR } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie, watchStates } from "./harness.js";
import { installProbe } from "./probe-tool.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-fork-", { setup: installProbe });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

interface Saved {
  name: string;
  plan: string;
  paused: boolean;
  parent?: string;
  depth?: number;
  agents: Array<{
    profile: string;
    model?: string;
    skills?: string[];
    session?: {
      agentId: string;
      messages: Array<{ role: string; content: string }>;
      taskState: { objective: string };
      usage: { requests: number };
    };
  }>;
}
const saved = (id: string) =>
  JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8")) as Saved;

const live = async () => Number(/agents-live (\d+)/.exec(await o.read("stats"))![1]);

/** Writes `spec` to an agent's `fork` and reads the new session's id back on the same open. */
async function forkFile(agent: string, spec: string): Promise<string> {
  const f = await o.fsys.open(`${agent}/fork`, ORDWR);
  try {
    await f.write(spec);
    return (await f.read(0)).toString().trim();
  } finally {
    await f.close();
  }
}

describe("fork on an agent's ctl", () => {
  it("makes a session from the agent's history and task state, which goes its own way", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=trunk`);
    const agent = `session/${id}/agent/main`;
    await o.fsys.writeFile(`session/${id}/plan`, "- [ ] try the first way\n");
    await o.fsys.writeFile(`${agent}/ctl`, "skill load git\nmodel other-model\n");
    o.mock.enqueue({ text: "The first way, then." });
    await prompt(o, agent, "Which way?");

    const before = await live();
    await o.fsys.writeFile(`${agent}/ctl`, "fork other-way\n");
    const chat = await o.read(`${agent}/chat`);
    const forkId = /· forked to session (\S+) \(other-way\)\n/.exec(chat)![1]!;
    expect(await o.read("session/idx")).toContain(`${forkId}\tother-way\tidle\t${o.work}\n`);
    const fork = `session/${forkId}/agent/main`;
    // Paused, as a restored session is: nothing connected yet.
    expect(await live()).toBe(before);
    expect(await o.read(`${fork}/chat`)).toBe(chat.slice(0, chat.indexOf("· forked")));
    expect(await o.read(`${fork}/cfg`)).toMatch(/profile=coding\n.*model=other-model\n.*skills=git\n/s);
    expect(await o.read(`session/${forkId}/plan`)).toBe("- [ ] try the first way\n");
    const file = saved(forkId);
    expect(file.paused).toBe(true);
    expect(file.parent).toBeUndefined();
    expect(file.agents[0]!.session!.agentId).toBe(`${forkId}.main`);
    expect(file.agents[0]!.session!.usage.requests).toBe(0);
    expect(file.agents[0]!.session!.taskState.objective).toBe("Which way?");
    expect(JSON.parse(await o.read(`${fork}/usage`)).session.requests).toBe(0);

    // The fork carries on from the same history; the trunk does not see it.
    o.mock.enqueue({ text: "The other way." });
    await prompt(o, fork, "Now the other way");
    const sent = (o.mock.lastRequest!.body as { messages: Array<{ role: string; content: string }> })
      .messages;
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.slice(1).map((m) => m.content)).toEqual([
      "Which way?",
      "The first way, then.",
      "Now the other way",
    ]);
    const trunk = JSON.parse(await o.read(`${agent}/context`)) as unknown[];
    expect(trunk).toHaveLength(2);
  });

  it("answers the new id through the fork file, and with --clean keeps the task state alone", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=wide`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ text: "A long conversation." });
    await prompt(o, agent, "Survey everything");

    const forkId = await forkFile(agent, "--clean narrow");
    expect(forkId).toMatch(/^\d{19}-[0-9a-f]{6}$/);
    expect(await o.read(`${agent}/chat`)).toContain(
      `· forked (the task state alone) to session ${forkId} (narrow)\n`,
    );
    const fork = `session/${forkId}/agent/main`;
    expect(await o.read(`${fork}/context`)).toBe("[]\n");
    expect(saved(forkId).agents[0]!.session!.taskState.objective).toBe("Survey everything");
    // Unnamed, it is named after the session it came from.
    const other = await forkFile(agent, "");
    expect(saved(other).name).toBe("wide-fork");

    await expect(o.fsys.writeFile(`${agent}/ctl`, "fork --deep x\n")).rejects.toThrow(
      "fork: fork takes [--clean] [NAME], not '--deep'",
    );
    const mode = await o.fsys.stat(`${agent}/fork`);
    expect([mode.mode & 0o777, mode.uid, mode.gid]).toEqual([0o664, `${id}.main`, id]);
  });

  it("cuts a running turn where it is, answering its call as interrupted", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 30" } }] });
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Run the long thing");
    await states.until("calling: shell");
    const forkId = await forkFile(agent, "mid-turn");
    const history = saved(forkId).agents[0]!.session!.messages;
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(history[2]!.content).toBe(INTERRUPTED_RESULT);
    const stopping = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/ctl`, "stop\n");
    await stopping.until("idle");
  });

  it("made by an agent, is that agent's child", async () => {
    const id = await o.create(`agent=prober cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const steps = [{ op: "write", path: `${agent}/ctl`, data: "fork by-itself\n" }];
    o.mock.enqueue(
      { toolCalls: [{ name: "probe", arguments: { steps: JSON.stringify(steps) } }] },
      { text: "Forked." },
    );
    await prompt(o, agent, "fork yourself");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toContain(`write ${agent}/ctl as ${id}.main: ok`);
    const forkId = /· forked to session (\S+) \(by-itself\)/.exec(chat)![1]!;
    const file = saved(forkId);
    expect([file.parent, file.depth]).toEqual([`${id}.main`, 1]);
  });
});
