import { describe, expect, it } from "vitest";
import { GeminiDecoder } from "./decoder.js";

const text = (t: string, usage: string) =>
  `{"candidates":[{"content":{"parts":[{"text":${JSON.stringify(t)}}],"role":"model"},"index":0}],"usageMetadata":${usage},"modelVersion":"g","responseId":"r1"}`;
const last =
  '{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}';

function decode(...data: string[]) {
  const d = new GeminiDecoder({ provider: "gemini" });
  for (const item of data) d.accept({ data: item });
  d.end();
  return d.builder.drain();
}

describe("the Gemini decoder", () => {
  it("keeps the usage of the last chunk that had one, even when that chunk took the fast path", () => {
    const events = decode(
      text("Hel", '{"promptTokenCount":7,"candidatesTokenCount":1}'),
      text("lo", '{"promptTokenCount":7,"candidatesTokenCount":2}'),
      text("!", '{"promptTokenCount":7,"cachedContentTokenCount":3,"candidatesTokenCount":3}'),
      last,
    );
    expect(events.find((e) => e.type === "usage")).toEqual({
      type: "usage",
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 3, cacheCreationTokens: 0 },
    });
    const done = events.at(-1);
    expect(done?.type === "done" && done.message.content).toBe("Hello!");
  });

  it("leaves a chunk whose usage is not written as expected to the full parser", () => {
    expect(() =>
      decode(text("a", '{"promptTokenCount":1}'), text("b", '{"promptTokenCount":}'), last),
    ).toThrow(
      expect.objectContaining({
        name: "TransientError",
        providerMessage: expect.stringMatching(/^unreadable stream data/),
      }),
    );
  });
});
