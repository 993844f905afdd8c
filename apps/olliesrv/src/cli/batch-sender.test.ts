import { afterEach, describe, expect, it, vi } from "vitest";
import { BatchSender } from "./batch-sender.js";
import { batchLines } from "./line-batch.js";

/** A sender whose agent takes each batch at once and ends its turn when the test says. */
function agent(windowMs: number, maxLines = 100) {
  const prompts: Array<{ lines: string[]; last: boolean }> = [];
  const turns: Array<() => void> = [];
  const sender = new BatchSender({
    windowMs,
    maxLines,
    maxBytes: 100_000,
    deliver: async (batch, last) => {
      prompts.push({ lines: batchLines(batch), last });
      return { ticket: String(prompts.length), ended: new Promise<void>((resolve) => turns.push(resolve)) };
    },
  });
  return { sender, prompts, endTurn: (n: number) => turns[n]!() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("batching lines into prompts", () => {
  it("sends what a window gathered as one prompt, and merges what comes during the turn into the next", async () => {
    vi.useFakeTimers();
    const { sender, prompts, endTurn } = agent(2000);
    sender.push("a");
    sender.push("b");
    expect(prompts).toEqual([]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(prompts).toEqual([{ lines: ["a", "b"], last: false }]);

    // The agent is busy with the first batch: however long, what comes waits for its turn to end.
    for (const line of ["c", "d", "e"]) {
      sender.push(line);
      await vi.advanceTimersByTimeAsync(5000);
    }
    expect(prompts).toHaveLength(1);
    endTurn(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(prompts[1]).toEqual({ lines: ["c", "d", "e"], last: false });
    expect(sender.batches).toBe(2);
  });

  it("sends a full batch without waiting for its window, and the rest as the last one when the source ends", async () => {
    const { sender, prompts } = agent(3_600_000, 3);
    for (const line of ["1", "2", "3", "4"]) sender.push(line);
    await vi.waitFor(() => expect(prompts).toHaveLength(1));
    expect(prompts[0]!.lines).toEqual(["1", "2", "3"]);
    // Its turn has not ended: the last batch queues behind it all the same.
    expect(await sender.finish()).toBe(2);
    expect(prompts[1]).toEqual({ lines: ["4"], last: true });
  });

  it("reports a prompt that cannot be written, and discards on a stop", async () => {
    const sender = new BatchSender({
      windowMs: 0,
      maxLines: 10,
      maxBytes: 10_000,
      deliver: async () => {
        throw new Error("session 1 was killed");
      },
    });
    sender.push("x");
    await expect(sender.failed).rejects.toThrow("session 1 was killed");
    sender.push("y");
    sender.push("z");
    expect(sender.discard()).toBe(2);
  });
});
