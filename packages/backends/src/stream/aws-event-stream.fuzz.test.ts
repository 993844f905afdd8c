import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeEventStreamMessage } from "../testing/kiro/event-stream-encoder.js";
import {
  batches,
  concat,
  entry,
  failure,
  rawFrame,
  rechunk,
  utf8,
} from "./__fixtures__/event-stream-frames.js";
import { EventStreamError, type EventStreamHeaderValue } from "./aws-event-stream.js";

describe("fuzzing", () => {
  // Each property has a floor on the frames it builds; the five together are ≥ 125,000 frames.
  const RUNS = 1250;
  const PER_RUN = { minLength: 20, maxLength: 30 };
  const FLOOR = RUNS * PER_RUN.minLength;

  // Characters of 1 to 4 UTF-8 bytes: drawing from a short list is several times cheaper than graphemes.
  const char = fc.constantFrom("a", "Z", ":", "-", "{", '"', "é", "ß", "→", "✓", "🎉", "𝄞");
  const name = fc.string({ unit: char, minLength: 1, maxLength: 6 });
  const stringMessage = fc.record({
    headers: fc.array(fc.tuple(name, fc.string({ unit: char, maxLength: 12 })), { maxLength: 4 }),
    payload: fc.oneof(fc.string({ unit: char, maxLength: 40 }), fc.uint8Array({ maxLength: 40 })),
  });
  const encode = (m: { headers: [string, string][]; payload: string | Uint8Array }) =>
    encodeEventStreamMessage(Object.fromEntries(m.headers), m.payload);
  type H = EventStreamHeaderValue;
  const headerValue: fc.Arbitrary<H> = fc.oneof(
    fc.boolean().map((value): H => ({ type: "bool", value })),
    fc.integer({ min: -128, max: 127 }).map((value): H => ({ type: "byte", value })),
    fc.integer({ min: -32768, max: 32767 }).map((value): H => ({ type: "short", value })),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((value): H => ({ type: "int32", value })),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value): H => ({ type: "int64", value })),
    fc.uint8Array({ maxLength: 12 }).map((value): H => ({ type: "bytes", value })),
    fc.string({ unit: char, maxLength: 12 }).map((value): H => ({ type: "string", value })),
    fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms): H => ({ type: "timestamp", value: new Date(ms) })),
    fc.uuid().map((value): H => ({ type: "uuid", value })),
  );
  const typedMessage = fc.record({
    headers: fc.array(fc.tuple(name, headerValue), { maxLength: 4 }),
    payload: fc.uint8Array({ maxLength: 40 }),
  });
  const chunkSizes = fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 });

  /** Deep equality at fuzzing speed (expect's is several times slower); expect only for the diff. */
  function same(actual: unknown, expected: unknown): void {
    if (isDeepStrictEqual(actual, expected)) return;
    expect(actual).toEqual(expected);
    throw new Error("equal, but not deep-strict-equal");
  }
  const nullProto = (entries: Iterable<readonly [string, EventStreamHeaderValue]>) =>
    Object.assign(Object.create(null), Object.fromEntries(entries));

  /** Decodes a stream that may be broken: only EventStreamError may escape. */
  async function survives(chunks: Uint8Array[]): Promise<void> {
    const err = await failure(chunks);
    if (err !== undefined && !(err instanceof EventStreamError)) throw err;
  }

  it(`round-trips ≥ ${FLOOR} frames from the mock's encoder, re-chunked at random`, async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stringMessage, PER_RUN), chunkSizes, async (messages, sizes) => {
        count += messages.length;
        const stream = concat(messages.map(encode));
        const got = (await batches(rechunk(stream, sizes))).flat();
        same(
          got,
          messages.map((m) => ({
            headers: nullProto(m.headers.map(([n, value]) => [n, { type: "string", value }])),
            payload: typeof m.payload === "string" ? utf8(m.payload) : m.payload,
          })),
        );
      }),
      { numRuns: RUNS },
    );
    expect(count).toBeGreaterThanOrEqual(FLOOR);
  });

  it(`round-trips ≥ ${FLOOR} frames carrying every header type, re-chunked at random`, async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(typedMessage, PER_RUN), chunkSizes, async (messages, sizes) => {
        count += messages.length;
        const stream = concat(
          messages.map((m) => rawFrame(concat(m.headers.map(([n, v]) => entry(n, v))), m.payload)),
        );
        const got = (await batches(rechunk(stream, sizes))).flat();
        same(
          got,
          messages.map((m) => ({ headers: nullProto(m.headers), payload: m.payload })),
        );
      }),
      { numRuns: RUNS },
    );
    expect(count).toBeGreaterThanOrEqual(FLOOR);
  });

  it(`≥ ${FLOOR} frames with one bit or byte flipped: always a CRC mismatch, in the frame it hit`, async () => {
    // CRC-32 catches every error burst of up to 32 bits, so one flipped byte cannot pass. The prelude CRC
    // is checked before its lengths are trusted, so the error is a CRC one whatever byte was hit.
    let count = 0;
    const mask = fc.oneof(
      fc.integer({ min: 0, max: 7 }).map((bit) => 1 << bit),
      fc.integer({ min: 1, max: 255 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(stringMessage, PER_RUN),
        fc.nat(),
        mask,
        chunkSizes,
        async (messages, at, xor, sizes) => {
          count += messages.length;
          const frames = messages.map(encode);
          const stream = concat(frames);
          const i = at % stream.length;
          stream[i]! ^= xor;
          // The error names the frame hit by where it starts: every frame before it passed.
          let start = 0;
          for (let f = 0; start + frames[f]!.length <= i; f++) start += frames[f]!.length;
          const error = await failure(rechunk(stream, sizes));
          expect(error).toBeInstanceOf(EventStreamError);
          expect((error as Error).message).toMatch(
            new RegExp(`^event-stream (prelude|message) CRC mismatch in the message at byte ${start}:`),
          );
        },
      ),
      { numRuns: RUNS },
    );
    expect(count).toBeGreaterThanOrEqual(FLOOR);
  });

  it(`≥ ${FLOOR} frames with bytes dropped, inserted or flipped: decoded or EventStreamError`, async () => {
    // A frame shifted by a byte fails its CRC only with high probability, not for certain: so this property
    // asks only that nothing but EventStreamError escapes.
    let count = 0;
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom("flip", "drop", "insert"),
      byte: fc.nat(255),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(stringMessage, PER_RUN),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        chunkSizes,
        async (messages, edits, sizes) => {
          count += messages.length;
          const bytes = [...concat(messages.map(encode))];
          for (const { at, kind, byte } of edits) {
            const i = at % bytes.length;
            if (kind === "flip") bytes[i]! ^= byte || 1;
            else if (kind === "drop") bytes.splice(i, 1);
            else bytes.splice(i, 0, byte);
          }
          await survives(rechunk(Uint8Array.from(bytes), sizes));
        },
      ),
      { numRuns: RUNS },
    );
    expect(count).toBeGreaterThanOrEqual(FLOOR);
  });

  it(`≥ ${FLOOR} frames with random header sections under valid CRCs: decoded or EventStreamError`, async () => {
    let count = 0;
    const junk = fc.record({
      headers: fc.uint8Array({ maxLength: 40 }),
      payload: fc.uint8Array({ maxLength: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(junk, PER_RUN), async (messages) => {
        count += messages.length;
        for (const m of messages) await survives([rawFrame(m.headers, m.payload)]);
      }),
      { numRuns: RUNS },
    );
    expect(count).toBeGreaterThanOrEqual(FLOOR);
  });

  it("random bytes: decoded or EventStreamError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), chunkSizes, (garbage, sizes) =>
        survives(rechunk(garbage, sizes)),
      ),
      { numRuns: 2000 },
    );
  });
});
