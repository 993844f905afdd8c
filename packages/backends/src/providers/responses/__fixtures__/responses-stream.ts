import { expect } from "vitest";
import type { BackendError } from "../../../errors.js";
import { readSse } from "../../../http/sse-reader.js";
import { frameBytes, type Rendered } from "../../../testing/mock-reply.js";
import type { StreamEvent } from "../../../types.js";
import { ResponsesDecoder } from "../decoder.js";

export const MODEL = "gpt-5.1-codex";
export const source = { provider: "copilot", profile: "copilot" };

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** What the decoder makes of a rendered stream read in `size`-byte network chunks, and how it failed. */
export async function decode(rendered: Rendered, size: number) {
  expect(rendered.status).toBe(200);
  const bytes = Buffer.concat(rendered.frames.map(frameBytes));
  const decoder = new ResponsesDecoder(source);
  decoder.builder.stamp({ provider: "copilot", model: MODEL });
  const events: StreamEvent[] = [];
  try {
    for await (const items of readSse(chunks(bytes, size))) {
      for (const item of items) decoder.accept(item);
      events.push(...decoder.builder.drain());
    }
    decoder.end();
    events.push(...decoder.builder.drain());
    return { events, error: undefined };
  } catch (err) {
    events.push(...decoder.builder.drain());
    return { events, error: err as BackendError };
  }
}
