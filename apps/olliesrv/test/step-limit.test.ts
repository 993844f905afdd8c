import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

/**
 * An agent's step limit through its `cfg` (`maxsteps=N`): the owner sets it, a turn stops at it, it is saved
 * with the session, and setting the profile's own number back leaves nothing behind. An agent may tighten
 * its own limit but never lift it.
 */

type Message = { role: string; content?: string | null };

/** The model calls a tool for ever, until it is told its steps are used up; "Raise" writes its own cfg. */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  const first = String(messages.find((m) => m.role === "user")?.content ?? "");
  const raise = /^Raise to (\d+)/.exec(first);
  if (raise) {
    if (last.role === "tool") return { text: "Tried." };
    const [, steps] = raise;
    const session = /session ([\w-]+)/.exec(first)![1];
    return {
      toolCalls: [
        {
          name: "client_9p",
          arguments: { op: "write", path: `session/${session}/agent/main/cfg`, data: `maxsteps=${steps}\n` },
        },
      ],
    };
  }
  if (String(last.content).includes("has used all")) return { text: "Out of steps." };
  return { toolCalls: [{ name: "client_9p", arguments: { op: "ls", path: "." } }] };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-step-limit-", {
    mock: { replies: model },
    setup: (config) => {
      mkdirSync(join(config, "agents"), { recursive: true });
      writeFileSync(
        join(config, "agents", "limited.json"),
        JSON.stringify({ prompt: ["echo You loop."], autoLoad: ["client_9p"], maxSteps: 5 }),
      );
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const saved = (id: string) =>
  (
    JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8")) as {
      agents: Array<{ maxSteps?: number }>;
    }
  ).agents[0]!;

const toolResults = async (agent: string) =>
  (JSON.parse(await o.read(`${agent}/context`)) as Message[]).filter((m) => m.role === "tool");

describe("an agent's step limit in cfg", () => {
  it("is the profile's until set; a turn stops at it; it is saved, and the profile's number forgets it", async () => {
    const id = await o.create(`agent=limited cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    expect(await o.read(`${agent}/cfg`)).toContain("\nmaxsteps=5\n");

    await o.fsys.writeFile(`${agent}/cfg`, "maxsteps=1\n");
    expect(await o.read(`${agent}/cfg`)).toContain("\nmaxsteps=1\n");
    await prompt(o, agent, "Go on for ever.");
    expect(await o.read(`${agent}/outcome`)).toBe("maxsteps\n");
    expect(await toolResults(agent)).toHaveLength(1);
    expect(saved(id).maxSteps).toBe(1);

    // Back to the profile's number: the agent follows its profile again, and the file says nothing of it.
    await o.fsys.writeFile(`${agent}/cfg`, "maxsteps=5\n");
    expect(saved(id).maxSteps).toBeUndefined();
    expect(await o.read(`${agent}/cfg`)).toContain("\nmaxsteps=5\n");

    for (const bad of ["maxsteps=0", "maxsteps=many", "maxsteps=10001"])
      await expect(o.fsys.writeFile(`${agent}/cfg`, `${bad}\n`), bad).rejects.toThrow(
        /maxsteps takes a number of rounds from 1 to 10000/,
      );
  });

  it("may be tightened by the agent itself, never lifted past its profile's", async () => {
    const id = await o.create(`agent=limited cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await prompt(o, agent, `Raise to 6 in session ${id}`);
    expect(String((await toolResults(agent)).at(-1)?.content)).toContain(
      `only ${o.owner} may give more steps than the profile's 5`,
    );
    await o.logged(`refused maxsteps by ${id}.main`);
    expect(await o.read(`${agent}/cfg`)).toContain("\nmaxsteps=5\n");

    const other = await o.create(`agent=limited cwd=${o.work}`);
    await prompt(o, `session/${other}/agent/main`, `Raise to 2 in session ${other}`);
    expect(await o.read(`session/${other}/agent/main/cfg`)).toContain("\nmaxsteps=2\n");
    // The owner may give more than the profile does.
    await o.fsys.writeFile(`${agent}/cfg`, "maxsteps=60\n");
    expect(await o.read(`${agent}/cfg`)).toContain("\nmaxsteps=60\n");
  });
});
