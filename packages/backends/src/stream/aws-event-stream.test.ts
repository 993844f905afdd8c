import { isDeepStrictEqual } from "node:util";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeEventStreamMessage } from "../testing/kiro/event-stream-encoder.js";
import {
  decodeEventStreamMessage,
  EventStreamError,
  type EventStreamHeaderValue,
  type EventStreamMessage,
  readAwsEventStream,
} from "./aws-event-stream.js";

const bytes = (hex: string) =>
  Uint8Array.from(hex.match(/[0-9a-f]{2}/gi)!.map((h) => Number.parseInt(h, 16)));
const utf8 = (text: string) => new TextEncoder().encode(text);
const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const be32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** A frame built by hand around any header section, with correct CRCs unless the lengths are overridden. */
function rawFrame(
  headers: Uint8Array,
  payload: Uint8Array,
  lie: { total?: number; headersLength?: number } = {},
) {
  const total = 16 + headers.length + payload.length;
  const prelude = concat([be32(lie.total ?? total), be32(lie.headersLength ?? headers.length)]);
  const body = concat([prelude, be32(crc32(prelude)), headers, payload]);
  return concat([body, be32(crc32(body))]);
}

/** One header entry of any value type, written from the layout in the design document. */
function entry(name: string, header: EventStreamHeaderValue): Uint8Array {
  const n = utf8(name);
  const [type, value] = valueBytes(header);
  return concat([Uint8Array.of(n.length), n, Uint8Array.of(type), value]);
}

function valueBytes(h: EventStreamHeaderValue): [type: number, value: Uint8Array] {
  const b = Buffer.alloc(8);
  const withLength = (data: Uint8Array) =>
    concat([Uint8Array.of(data.length >> 8, data.length & 0xff), data]);
  switch (h.type) {
    case "bool":
      return [h.value ? 0 : 1, new Uint8Array(0)];
    case "byte":
      return [2, b.subarray(0, b.writeInt8(h.value))];
    case "short":
      return [3, b.subarray(0, b.writeInt16BE(h.value))];
    case "int32":
      return [4, b.subarray(0, b.writeInt32BE(h.value))];
    case "int64":
      return [5, b.subarray(0, b.writeBigInt64BE(h.value))];
    case "bytes":
      return [6, withLength(h.value)];
    case "string":
      return [7, withLength(utf8(h.value))];
    case "timestamp":
      return [8, b.subarray(0, b.writeBigInt64BE(BigInt(h.value.getTime())))];
    case "uuid":
      return [9, Buffer.from(h.value.replaceAll("-", ""), "hex")];
  }
}

async function* from(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** The batches the reader yields for these chunks. */
async function batches(chunks: Uint8Array[]): Promise<EventStreamMessage[][]> {
  const out: EventStreamMessage[][] = [];
  for await (const batch of readAwsEventStream(from(chunks))) out.push(batch);
  return out;
}

async function failure(chunks: Uint8Array[]): Promise<unknown> {
  try {
    await batches(chunks);
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Splits `stream` into consecutive pieces of the given sizes, cycling through them. */
function rechunk(stream: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, i = 0; at < stream.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(stream.subarray(at, at + size));
    at += size;
  }
  return out;
}

const strings = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, value]) => [k, { type: "string", value }]));
const text = (m: EventStreamMessage) => new TextDecoder().decode(m.payload);

const WORKED = bytes(`
  00 00 00 7c 00 00 00 5c 3b dd cf 78 0b 3a 65 76 65 6e 74 2d 74 79 70 65 07 00 16 61 73 73 69 73
  74 61 6e 74 52 65 73 70 6f 6e 73 65 45 76 65 6e 74 0d 3a 63 6f 6e 74 65 6e 74 2d 74 79 70 65 07
  00 10 61 70 70 6c 69 63 61 74 69 6f 6e 2f 6a 73 6f 6e 0d 3a 6d 65 73 73 61 67 65 2d 74 79 70 65
  07 00 05 65 76 65 6e 74 7b 22 63 6f 6e 74 65 6e 74 22 3a 22 48 69 22 7d b0 2b ab dc`);
const WORKED_HEADERS = {
  ":event-type": "assistantResponseEvent",
  ":content-type": "application/json",
  ":message-type": "event",
};

describe("the design document's test vectors (B.5.2)", () => {
  it("decodes the worked example, and the encoder writes it byte for byte", () => {
    expect(WORKED.length).toBe(124);
    const m = decodeEventStreamMessage(WORKED);
    expect(m.headers).toEqual(strings(WORKED_HEADERS));
    expect(Object.keys(m.headers)).toEqual(Object.keys(WORKED_HEADERS));
    expect(text(m)).toBe('{"content":"Hi"}');
    expect(encodeEventStreamMessage(WORKED_HEADERS, '{"content":"Hi"}')).toEqual(WORKED);
  });

  it.each([
    [
      ":event-type",
      "toolUseEvent",
      "event",
      '{"name":"read_file","toolUseId":"tooluse_abc123","input":"{\\"path\\":"}',
      168,
      82,
      0xa0103be6,
      0x387d26e4,
    ],
    [
      ":event-type",
      "contextUsageEvent",
      "event",
      '{"contextUsagePercentage":3.12}',
      134,
      87,
      0xae8b5e0c,
      0x4f605912,
    ],
    [
      ":exception-type",
      "ThrottlingException",
      "exception",
      '{"message":"Too many requests, please wait before trying again."}',
      178,
      97,
      0x3590d5d3,
      0x4207aae0,
    ],
  ])(
    "%s=%s: lengths and both CRCs as tabulated",
    (first, kind, messageType, payload, total, headersLength, preludeCrc, messageCrc) => {
      const headers = { [first]: kind, ":content-type": "application/json", ":message-type": messageType };
      const frame = encodeEventStreamMessage(headers, payload);
      const view = new DataView(frame.buffer, frame.byteOffset, frame.length);
      expect([frame.length, view.getUint32(0), view.getUint32(4)]).toEqual([total, total, headersLength]);
      expect([view.getUint32(8), view.getUint32(total - 4)]).toEqual([preludeCrc, messageCrc]);
      // Decoding the tabulated numbers spliced into the encoded body checks them independently of the encoder.
      const spliced = concat([
        be32(total),
        be32(headersLength),
        be32(preludeCrc),
        frame.subarray(12, -4),
        be32(messageCrc),
      ]);
      const m = decodeEventStreamMessage(spliced);
      expect(m.headers).toEqual(strings(headers));
      expect(text(m)).toBe(payload);
    },
  );

  it('reproduces hex.pm event_stream\'s vector: no headers, payload {"foo": "bar"}', () => {
    const frame = encodeEventStreamMessage({}, '{"foo": "bar"}');
    expect(Buffer.from(frame.subarray(0, 12)).toString("hex")).toBe("0000001e00000000baf2f68a");
    expect(Buffer.from(frame.subarray(-4)).toString("hex")).toBe("ae7258e4");
    const m = decodeEventStreamMessage(frame);
    expect(m.headers).toEqual({});
    expect(text(m)).toBe('{"foo": "bar"}');
  });
});

describe("rejected frames", () => {
  const rejects = (frame: Uint8Array, message: RegExp) => {
    expect(() => decodeEventStreamMessage(frame)).toThrow(EventStreamError);
    expect(() => decodeEventStreamMessage(frame)).toThrow(message);
  };

  it("a corrupted prelude CRC, naming it with both values in hex", () => {
    const bad = WORKED.slice();
    bad[9]! ^= 0x01;
    rejects(bad, /prelude CRC mismatch .*expected 0x3bdccf78, computed 0x3bddcf78/);
  });

  it("a corrupted message CRC, or a corrupted byte it covers", () => {
    const bad = WORKED.slice();
    bad[123]! ^= 0xff;
    rejects(bad, /message CRC mismatch .*expected 0xb02bab23, computed 0xb02babdc/);
    const payload = WORKED.slice();
    payload[115]! ^= 0x20;
    rejects(payload, /message CRC mismatch/);
  });

  it("lengths that cannot be: total below 16 or above 16 MiB, headers that do not fit", () => {
    rejects(
      rawFrame(new Uint8Array(0), new Uint8Array(0), { total: 15 }),
      /total_length 15 .*outside 16\.\.16777216/,
    );
    rejects(
      rawFrame(new Uint8Array(0), new Uint8Array(0), { total: 16 * 1024 * 1024 + 1 }),
      /total_length 16777217/,
    );
    rejects(
      rawFrame(new Uint8Array(0), utf8("abc"), { headersLength: 4 }),
      /headers_length 4 .*19-byte message/,
    );
    rejects(
      rawFrame(new Uint8Array(0), utf8("abc"), { total: 20 }),
      /total_length 20 does not match the 19 bytes/,
    );
    rejects(WORKED.subarray(0, 11), /shorter than its prelude/);
  });

  it("malformed headers: an empty name, an unknown value type, a value past the section", () => {
    rejects(rawFrame(Uint8Array.of(0, 7, 0, 0), new Uint8Array(0)), /header at byte 12: the name is empty/);
    const ok = entry("a", { type: "string", value: "x" });
    rejects(
      rawFrame(concat([ok, Uint8Array.of(1, 0x62, 10)]), new Uint8Array(0)),
      /byte 18: unknown value type 10/,
    );
    rejects(rawFrame(Uint8Array.of(5, 0x61, 0x62), new Uint8Array(0)), /runs past the headers section/);
    rejects(rawFrame(Uint8Array.of(1, 0x61), new Uint8Array(0)), /runs past the headers section/);
    rejects(rawFrame(Uint8Array.of(1, 0x61, 4, 0, 0, 0), new Uint8Array(0)), /runs past the headers section/);
    rejects(
      rawFrame(Uint8Array.of(1, 0x61, 7, 0, 3, 0x62, 0x63), new Uint8Array(0)),
      /runs past the headers section/,
    );
    // The header section ends where headers_length says, even if the payload could complete the value.
    const cut = concat([ok, Uint8Array.of(1, 0x62, 7, 0, 3)]);
    rejects(rawFrame(cut, utf8("xyz")), /runs past/);
  });
});

describe("header value types", () => {
  it("decodes every type the format defines, at their limits", () => {
    const headers: Record<string, EventStreamHeaderValue> = {
      t: { type: "bool", value: true },
      f: { type: "bool", value: false },
      b: { type: "byte", value: -128 },
      s: { type: "short", value: -32768 },
      i: { type: "int32", value: -2147483648 },
      l: { type: "int64", value: -(2n ** 63n) },
      L: { type: "int64", value: 2n ** 63n - 1n },
      y: { type: "bytes", value: Uint8Array.of(0, 255, 7) },
      e: { type: "bytes", value: new Uint8Array(0) },
      nämé: { type: "string", value: "héllo ✓ 🎉" },
      d: { type: "timestamp", value: new Date("2025-06-01T12:34:56.789Z") },
      u: { type: "uuid", value: "123e4567-e89b-12d3-a456-426614174000" },
    };
    const frame = rawFrame(concat(Object.entries(headers).map(([n, v]) => entry(n, v))), utf8("p"));
    const m = decodeEventStreamMessage(frame);
    expect(m.headers).toEqual(headers);
    expect(text(m)).toBe("p");
    expect(
      decodeEventStreamMessage(rawFrame(entry("b", { type: "byte", value: 127 }), new Uint8Array(0))).headers,
    ).toEqual({
      b: { type: "byte", value: 127 },
    });
  });

  it("keeps the last of a repeated name, and a __proto__ header as a plain key", () => {
    const frame = rawFrame(
      concat([
        entry("k", { type: "string", value: "first" }),
        entry("__proto__", { type: "bool", value: true }),
        entry("k", { type: "string", value: "second" }),
      ]),
      new Uint8Array(0),
    );
    const { headers } = decodeEventStreamMessage(frame);
    expect(Object.entries(headers)).toEqual([
      ["k", { type: "string", value: "second" }],
      ["__proto__", { type: "bool", value: true }],
    ]);
  });
});

describe("readAwsEventStream", () => {
  const frames = [
    WORKED,
    encodeEventStreamMessage(
      { ":message-type": "event", ":event-type": "assistantResponseEvent" },
      '{"content":"é→🎉"}',
    ),
    encodeEventStreamMessage({}, ""),
    encodeEventStreamMessage({ ":event-type": "meteringEvent" }, '{"usage":0.17}'),
  ];
  const stream = concat(frames);
  const expected = frames.map(decodeEventStreamMessage);
  const flat = (b: EventStreamMessage[][]) => b.flat();

  it("yields several frames of one chunk as one batch, without copying them", async () => {
    const chunk = stream.slice();
    const got = await batches([chunk]);
    expect(got).toHaveLength(1);
    expect(got[0]).toEqual(expected);
    expect(got[0]![1]!.payload.buffer).toBe(chunk.buffer);
  });

  it("reassembles frames split at every byte offset, into the batches each chunk completes", async () => {
    const ends = frames.map((_, i) => concat(frames.slice(0, i + 1)).length);
    for (let cut = 1; cut < stream.length; cut++) {
      const got = await batches([stream.subarray(0, cut), stream.subarray(cut)]);
      const done = ends.filter((e) => e <= cut).length;
      const counts = [done, frames.length - done].filter((n) => n > 0);
      expect(
        got.map((b) => b.length),
        `cut at ${cut}`,
      ).toEqual(counts);
      expect(flat(got)).toEqual(expected);
    }
  });

  it("splits that land inside headers and inside a multi-byte UTF-8 character keep the text intact", async () => {
    const arrow = WORKED.length + Buffer.from(frames[1]!).indexOf("→"); // e2 86 92
    for (const cut of [WORKED.length + 14, arrow + 1, arrow + 2]) {
      const [, m] = flat(await batches([stream.subarray(0, cut), stream.subarray(cut)]));
      expect(text(m!)).toBe('{"content":"é→🎉"}');
      expect(m!.headers[":event-type"]).toEqual({ type: "string", value: "assistantResponseEvent" });
    }
  });

  it("reads a stream delivered one byte at a time, and chunks that complete nothing yield nothing", async () => {
    const got = await batches(rechunk(stream, [1]));
    expect(got.map((b) => b.length)).toEqual([1, 1, 1, 1]);
    expect(flat(got)).toEqual(expected);
    expect(await batches([])).toEqual([]);
    expect(flat(await batches([new Uint8Array(0), stream, new Uint8Array(0)]))).toEqual(expected);
  });

  it("throws when the body ends inside a frame, at any byte, and names where", async () => {
    for (let end = 1; end < stream.length; end++) {
      const cut = stream.subarray(0, end);
      const err = await failure(rechunk(cut, [7]));
      const whole = [0, ...frames.map((_, i) => concat(frames.slice(0, i + 1)).length)].includes(end);
      if (whole) expect(err, `end at ${end}`).toBeUndefined();
      else expect(err, `end at ${end}`).toBeInstanceOf(EventStreamError);
    }
    expect(await failure([stream.subarray(0, 130)])).toMatchObject({
      message: "event-stream body ended inside the message at byte 124: 6 bytes received",
    });
    expect(await failure([stream.subarray(0, 140)])).toMatchObject({
      message: expect.stringMatching(/at byte 124: 16 bytes of \d+ received/),
    });
  });

  it("takes a 16 MiB frame, and a 4 MiB one in 4,096 chunks without re-copying what it holds", async () => {
    const max = rawFrame(new Uint8Array(0), new Uint8Array(16 * 1024 * 1024 - 16));
    expect(decodeEventStreamMessage(max).payload.length).toBe(16 * 1024 * 1024 - 16);
    // Concatenating the pending bytes on every chunk would copy ~8 GB here and time out.
    const big = rawFrame(entry("k", { type: "string", value: "v" }), new Uint8Array(4 * 1024 * 1024).fill(7));
    const got = await batches(rechunk(big, [1024]));
    expect(got.map((b) => b.length)).toEqual([1]);
    // Buffer.equals: expect's element-by-element comparison takes seconds on 4 MiB.
    expect(Buffer.from(big.subarray(12 + 6, -4)).equals(got[0]![0]!.payload)).toBe(true);
  });

  it("reports a bad frame by its offset in the stream, after yielding the good ones before it", async () => {
    const bad = stream.slice();
    bad[WORKED.length + 9]! ^= 1;
    const seen: number[] = [];
    const err = await (async () => {
      try {
        for await (const b of readAwsEventStream(from([bad.subarray(0, 130), bad.subarray(130)])))
          seen.push(b.length);
      } catch (e) {
        return e;
      }
    })();
    expect(seen).toEqual([1]);
    expect(err).toBeInstanceOf(EventStreamError);
    expect((err as Error).message).toMatch(/prelude CRC mismatch in the message at byte 124/);
  });
});

describe("fuzzing", () => {
  // Each property has a floor on the frames it builds; together they are ≥ 100,000 frames.
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

  it(`≥ ${FLOOR} frames with bytes flipped, dropped or inserted: decoded or EventStreamError`, async () => {
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
