import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INTERRUPTED_TURN, RESTART_RESULT } from "@ollie/agent-core/sessions";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT, watchStates } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-repair-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

interface SavedMessage {
  role: string;
  content: string;
  toolCalls?: unknown[];
}

const savedHistory = (id: string) => {
  const file = JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8")) as {
    paused: boolean;
    agents: Array<{ session?: { messages: SavedMessage[] } }>;
  };
  return { paused: file.paused, messages: file.agents[0]!.session!.messages };
};

describe("restoring a session cut off mid-turn", () => {
  it("answers the call left without a result and the prompt left without a reply, and saves that at once", async () => {
    const calling = await o.create(`agent=coding cwd=${o.work} name=calling`);
    const thinking = await o.create(`agent=coding cwd=${o.work} name=thinking`);
    const callingAgent = `session/${calling}/agent/main`;
    const thinkingAgent = `session/${thinking}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 30" } }] });
    const states = await watchStates(o, callingAgent);
    await o.fsys.writeFile(`${callingAgent}/prompt`, "Run the long thing");
    await states.until("calling: shell");
    // Something saves the session while the call runs (the agent itself saves when the turn starts and ends).
    await o.fsys.writeFile(`session/${calling}/ctl`, "rename still-calling\n");
    o.mock.enqueue({ text: "A reply that takes its time.", chunkSize: 1, delayMs: 2000 });
    const states2 = await watchStates(o, thinkingAgent);
    await o.fsys.writeFile(`${thinkingAgent}/prompt`, "Think slowly");
    await states2.until("thinking");
    // The model is asked once the prompt is saved; its reply is still coming.
    await vi.waitFor(
      () => expect(JSON.stringify(o.mock.requests.at(-1)?.body)).toContain("Think slowly"),
      WAIT,
    );

    await o.crash();
    // As the crash left them: a call without its result, a prompt without its reply.
    expect(savedHistory(calling).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(savedHistory(thinking).messages.map((m) => m.role)).toEqual(["user"]);

    await o.restart();
    // On disk before anyone touched either agent (both still paused): the call that was running, and the
    // turn it was in, answered; the turn that waited for its reply marked.
    for (const [id, n] of [
      [calling, 2],
      [thinking, 1],
    ] as const)
      expect(
        await o.logged(`session ${id}: answered ${n} cut-off call(s) or turn(s) as interrupted`),
      ).toContain(
        `INFO  olliesrv[sessions]: session ${id}: answered ${n} cut-off call(s) or turn(s) as interrupted\n`,
      );
    const called = savedHistory(calling);
    expect(called.paused).toBe(true);
    expect(called.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Run the long thing"],
      ["assistant", ""],
      ["tool", RESTART_RESULT],
      ["assistant", INTERRUPTED_TURN],
    ]);
    const thought = savedHistory(thinking);
    expect(thought.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Think slowly"],
      ["assistant", INTERRUPTED_TURN],
    ]);
    expect(await o.read("stats")).toContain("agents-live 0\n");

    // The agent comes back with the same history, repaired once.
    const history = JSON.parse(await o.read(`${callingAgent}/context`)) as SavedMessage[];
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(await o.read(`${callingAgent}/chat`)).toMatch(/← shell failed: \[interrupted by a restart: /);

    // A clean restart repairs nothing more.
    await o.stop();
    const from = o.log().length;
    await o.restart();
    expect(o.log().slice(from)).not.toContain("cut-off");
  });
});
