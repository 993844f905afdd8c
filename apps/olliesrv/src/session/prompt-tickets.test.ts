import type { TurnOutcome } from "@ollie/agent-core";
import { emptyTotals } from "@ollie/agent-core/sessions";
import { TransientError } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { PromptTickets } from "./prompt-tickets.js";

const usage = emptyTotals();
const ended = (o: TurnOutcome): Promise<TurnOutcome> => Promise.resolve(o);
const done: TurnOutcome = { status: "done", steps: 0, usage, reply: { role: "assistant", content: "" } };
const never = () => new AbortController().signal;

describe("prompt tickets", () => {
  it("numbers prompts on from the last saved number, and gives each one's outcome and reply", async () => {
    const tickets = new PromptTickets(41);
    let settle!: (o: TurnOutcome) => void;
    const running = tickets.issue(new Promise<TurnOutcome>((r) => (settle = r)));
    const error = new TransientError({ provider: "mock", providerMessage: "the backend is down" });
    const failed = tickets.issue(ended({ status: "error", steps: 0, usage, error }));
    expect([running, failed, tickets.issued]).toEqual([42, 43, 43]);
    expect(await tickets.wait(43, never())).toEqual({
      outcome: "error: mock: the backend is down",
      reply: "",
    });
    const waiting = tickets.wait(42, never());
    settle({ status: "done", steps: 1, usage, reply: { role: "assistant", content: "hi" } });
    expect(await waiting).toEqual({ outcome: "done", reply: "hi" });
  });

  it("explains a number it cannot wait for: never taken, taken before a restart, or forgotten", async () => {
    const tickets = new PromptTickets(5, 2);
    for (let i = 0; i < 3; i++) tickets.issue(ended(done));
    expect(tickets.remembered()).toEqual([7, 8]);
    await expect(tickets.wait(9, never())).rejects.toThrow("no prompt 9 has been taken (the last is 8)");
    await expect(tickets.wait(5, never())).rejects.toThrow("taken before olliesrv restarted");
    await expect(tickets.wait(6, never())).rejects.toThrow("only the last 2 are remembered");
  });

  it("answers waiters when the agent ends or the read is flushed", async () => {
    const tickets = new PromptTickets();
    const ticket = tickets.issue(new Promise<TurnOutcome>(() => {}));
    const flush = new AbortController();
    const flushed = tickets.wait(ticket, flush.signal);
    const killed = tickets.wait(ticket, never());
    flush.abort(new Error("flushed"));
    tickets.end(new Error("session killed"));
    await expect(flushed).rejects.toThrow("flushed");
    await expect(killed).rejects.toThrow("session killed");
    await expect(tickets.wait(ticket, never())).rejects.toThrow("session killed");
  });
});
