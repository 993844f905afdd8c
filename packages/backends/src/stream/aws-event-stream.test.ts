import { describe, expect, it } from "vitest";
import { encodeEventStreamMessage } from "../testing/kiro/event-stream-encoder.js";
import {
  batches,
  be32,
  concat,
  entry,
  failure,
  from,
  rawFrame,
  rechunk,
  utf8,
} from "./__fixtures__/event-stream-frames.js";
import {
  decodeEventStreamMessage,
  EventStreamError,
  type EventStreamHeaderValue,
  type EventStreamMessage,
  readAwsEventStream,
} from "./aws-event-stream.js";

const bytes = (hex: string) =>
  Uint8Array.from(hex.match(/[0-9a-f]{2}/gi)!.map((h) => Number.parseInt(h, 16)));

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
