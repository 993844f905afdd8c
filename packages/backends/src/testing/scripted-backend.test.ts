import { describe, expect, it } from "vitest";
import { collect, weatherTool } from "../__fixtures__/provider-suite.js";
import { ContextOverflowError, RateLimitError, TransientError } from "../errors.js";
import { ScriptedBackend } from "./scripted-backend.js";

describe("ScriptedBackend", () => {
  it("plays replies in order with provider-like events, and records the requests", async () => {
    const backend = new ScriptedBackend({
      replies: [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], chunkSize: 3 },
        { reasoning: "easy", text: "It is 18C in Paris.", usage: { input: 100, output: 12 } },
      ],
    });
    const first = await collect(
      backend.chatStream([{ role: "user", content: "Weather?" }], [weatherTool], { temperature: 0 }),
    );
    expect(first.calls).toEqual([
      { id: "call_scripted_0", name: "get_weather", arguments: { city: "Paris" } },
    ]);
    expect(first.events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThan(2);
    expect(first.done).toMatchObject({ reason: "tool_use", model: "scripted-model", id: "scripted-1" });
    const second = await collect(backend.chatStream([{ role: "user", content: "And?" }], []));
    expect(second).toMatchObject({
      text: "It is 18C in Paris.",
      reasoning: "easy",
      usage: { inputTokens: 100, outputTokens: 12 },
    });
    expect(backend.calls.map((c) => c.messages[0]!.content)).toEqual(["Weather?", "And?"]);
    expect(backend.calls[0]!.params).toEqual({ temperature: 0 });
  });

  it("throws the typed error of a fault, and cuts a stream short when asked", async () => {
    const backend = new ScriptedBackend({
      replies: [
        { fault: { type: "rate_limit", retryAfter: 2 } },
        { fault: { type: "context_overflow" } },
        { text: "never finished", cutAfter: 2 },
        { fault: { type: "stream_error", afterText: "half" } },
      ],
    });
    const run = () =>
      collect(backend.chatStream([{ role: "user", content: "x" }], [])).catch((e: unknown) => e);
    const limited = await run();
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(2000);
    expect(await run()).toBeInstanceOf(ContextOverflowError);
    expect(await run()).toBeInstanceOf(TransientError);
    expect(await run()).toBeInstanceOf(TransientError);
  });

  it("stops when its signal aborts", async () => {
    const backend = new ScriptedBackend({ replies: [{ text: "slowly, slowly", chunkSize: 1, delayMs: 20 }] });
    const ac = new AbortController();
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const e of backend.chatStream([{ role: "user", content: "x" }], [], {}, ac.signal)) {
          if (e.type === "text") got.push(e.delta);
          if (got.length === 3) ac.abort();
        }
      })(),
    ).rejects.toThrow(/abort/i);
    expect(got).toHaveLength(3);
  });
});
