import { mkdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connect, type OllieClient, type OllieEvent, type Session } from "@ollie/client";
import { execaSync } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

let o: Ollie;
let client: OllieClient;
beforeAll(async () => {
  o = await startOllie("olliesrv-client-queue-");
  client = await connect({ env: o.env });
});
afterAll(async () => {
  client.close();
  await o.stop();
  await o.remove();
});

/**
 * A session whose main agent's first turn runs a shell command that waits at the fifo `gate`: resolved once
 * the command is there, so the turn runs until `open()` is called.
 */
async function gatedTurn(name: string): Promise<{ session: Session; open: () => Promise<void> }> {
  const dir = join(o.work, name);
  mkdirSync(dir);
  const session = await client.newSession({ agent: "coding", cwd: dir });
  o.mock.enqueue(gatedCall(dir, "gate"));
  await session.agent().prompt("Wait at the gate");
  await readFile(join(dir, "gate.ready"));
  return { session, open: () => writeFile(join(dir, "gate"), "go\n") };
}

/** A reply calling a shell command that opens `GATE.ready`, then waits at the fifo GATE until it is opened. */
function gatedCall(dir: string, gate: string) {
  execaSync("mkfifo", [join(dir, `${gate}.ready`), join(dir, gate)]);
  return {
    toolCalls: [{ name: "shell", arguments: { command: `echo > ${gate}.ready; read w < ${gate}` } }],
  };
}

/** The `waiting` counts of the next `n` queue events (read one by one: a `for await` that breaks closes). */
async function waitingCounts(events: AsyncIterator<OllieEvent>, n: number): Promise<number[]> {
  const counts: number[] = [];
  while (counts.length < n) {
    const { value: e, done } = await events.next();
    if (done) throw new Error(`the events ended after ${JSON.stringify(counts)}`);
    if (e.kind === "agent" && e.type === "queue") counts.push(e.waiting);
  }
  return counts;
}

describe("an agent's waiting prompts, through @ollie/client", () => {
  it("lists the prompts written while a turn runs, in order, and says each change as an event", async () => {
    const { session, open } = await gatedTurn("queued");
    const agent = session.agent();
    const stream = await agent.events({ types: ["queue"] });
    const events = stream[Symbol.asyncIterator]();
    expect(await agent.queue()).toEqual([]);

    const text = 'Then this:\n\tline two, "quoted"\n\nand a last line';
    const second = await agent.prompt("Second");
    const third = await agent.prompt(text);
    expect(await agent.queue()).toEqual([
      { number: second.number, from: client.uname, text: "Second" },
      { number: third.number, from: client.uname, text },
    ]);
    // The prompt that ran at once (nothing ran before it) never waited.
    expect(second.number).toBe(2);
    expect(await waitingCounts(events, 2)).toEqual([1, 2]);

    o.mock.enqueue({ text: "Through the gate." }, { text: "Second done." }, { text: "Third done." });
    await open();
    await third.ended;
    expect(await waitingCounts(events, 2)).toEqual([1, 0]);
    expect(await agent.queue()).toEqual([]);
    await stream.close();
    await session.kill();
  });

  it("drops what waits when the session is killed, and says so before the session ends", async () => {
    const { session } = await gatedTurn("killed");
    const agent = session.agent();
    const events = await session.events({ topics: ["agent.main.queue", "session.kill"] });
    await agent.ctl("queue Never runs");
    expect(await agent.queue()).toEqual([{ number: 2, from: client.uname, text: "Never runs" }]);
    await session.kill();
    const seen: string[] = [];
    for await (const e of events)
      seen.push(e.kind === "agent" && e.type === "queue" ? `queue ${e.waiting}` : e.topic);
    expect(seen).toEqual(["queue 1", "queue 0", "session.kill"]);
  });

  it("lists the prompts a restart left waiting with no number or writer, as the agent runs them", async () => {
    const { session } = await gatedTurn("restarted");
    await session.agent().prompt("Second");
    await session.agent().prompt("Third");
    await o.crash();
    const dir = join(o.work, "restarted");
    // Brought back, the agent runs its waiting prompts: the first waits at another gate, the second behind it.
    o.mock.enqueue(gatedCall(dir, "gate2"), { text: "Second done." }, { text: "Third done." });
    await o.restart();
    const again = await connect({ env: o.env });
    try {
      const agent = again.session(session.id).agent();
      await readFile(join(dir, "gate2.ready"));
      expect(await agent.queue()).toEqual([{ number: undefined, from: undefined, text: "Third" }]);
      const events = (await agent.events({ types: ["queue"] }))[Symbol.asyncIterator]();
      await writeFile(join(dir, "gate2"), "go\n");
      expect(await waitingCounts(events, 1)).toEqual([0]);
      await agent.waitState({ until: "idle" });
      expect(await agent.lastPrompt()).toBe("Third");
      await again.session(session.id).kill();
    } finally {
      again.close();
    }
  });
});
