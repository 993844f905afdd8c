import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, untilTurns, WAIT, watchStates } from "./harness.js";

type Message = { role: string; content?: string | null };

const QUESTION = "Which is larger, 2 or 3?";

/**
 * The model, for every agent at once: the cascade agent fans the question out to three models (or, asked to
 * wait long, to the slow one alone) and merges what comes back; an asked agent answers with its model's name,
 * and the big model answers slowly (30 s of tokens), past any deadline here.
 */
function model(request: RecordedRequest): MockReply {
  const body = request.body as { model: string; messages: Message[] };
  const last = body.messages.at(-1)!;
  if (String(body.messages[0]?.content).includes("merging what they say")) {
    if (last.role === "tool") return { text: `Merged:\n${last.content}` };
    const slow = String(last.content).includes("wait long");
    return {
      toolCalls: [
        {
          name: "cascade",
          arguments: slow
            ? { prompt: QUESTION, agents: [{ model: "big-model" }], timeout: 120 }
            : {
                prompt: QUESTION,
                agents: [
                  { model: "mock-model" },
                  { profile: "default", model: "other-model" },
                  { model: "big-model" },
                ],
                timeout: 4,
              },
        },
      ],
    };
  }
  if (body.model === "big-model") return { text: "x".repeat(60), chunkSize: 1, delayMs: 500 };
  return { text: `3, says ${body.model}` };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-cascade-", { mock: { replies: model } });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const sessionIds = async () =>
  (await o.read("session/idx"))
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0]);

describe("cascade", () => {
  it("asks three models at once, merges the answers that came by the deadline, and ends their sessions", async () => {
    const parent = await o.create(`agent=cascade cwd=${o.work} name=asker`);
    const agent = `session/${parent}/agent/main`;
    await o.fsys.writeFile(`${agent}/prompt`, QUESTION);
    await untilTurns(o, agent, 1);

    const history = JSON.parse(await o.read(`${agent}/context`)) as Message[];
    const result = String(history.find((m) => m.role === "tool")?.content);
    expect(result).toBe(
      [
        "2 of 3 agents answered (deadline 4 s).",
        "",
        "## 1. default (mock-model): done",
        "3, says mock-model",
        "",
        "## 2. default (other-model): done",
        "3, says other-model",
        "",
        "## 3. default (big-model): timed out",
        "(no answer)\n",
      ].join("\n"),
    );
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: `Merged:\n${result}` });
    // Every asked session ended with the call, and none of them reported back as a spawned child would.
    expect(await sessionIds()).toEqual([parent]);
    const asked = o.mock.requests.filter(
      (r) => r.method === "POST" && !JSON.stringify(r.body).includes("merging what they say"),
    );
    expect(asked.map((r) => (r.body as { model: string }).model).sort()).toEqual([
      "big-model",
      "mock-model",
      "other-model",
    ]);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await o.read(`${agent}/turns`)).trim()).toBe("1");
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual([QUESTION]);
    await o.fsys.writeFile(`session/${parent}/ctl`, "kill");
  });

  it("ends the sessions it asked when its call is stopped", async () => {
    const parent = await o.create(`agent=cascade cwd=${o.work} name=stopper`);
    const agent = `session/${parent}/agent/main`;
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Ask, and wait long.");
    await states.until("calling: cascade");
    await vi.waitFor(async () => expect(await sessionIds()).toHaveLength(2), WAIT);
    await o.fsys.writeFile(`${agent}/ctl`, "stop");
    await vi.waitFor(async () => expect(await sessionIds()).toEqual([parent]), WAIT);
  });
});
