import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLines } from "./ndjson-reader.js";
import { RAW_LINE, readSse, type SseItem } from "./sse-reader.js";
import { Utf8Text } from "./utf8-text.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

/** `data` cut at `cuts` (byte offsets, any order). */
function cut(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, data.length]) {
    out.push(data.subarray(from, c));
    from = c;
  }
  return out;
}

function decodeAll(chunks: Uint8Array[]): string {
  const text = new Utf8Text();
  return chunks.map((c) => text.write(c)).join("") + text.end();
}

/** What TextDecoder makes of the same chunks: the behaviour Utf8Text keeps. */
function reference(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder("utf-8");
  return chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
}

async function* source(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

async function collect<T>(batches: AsyncGenerator<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

describe("Utf8Text", () => {
  it("decodes as TextDecoder does, wherever the chunks are cut, a leading byte-order mark dropped", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.string({ unit: "grapheme", maxLength: 30 }),
        fc.array(fc.nat(200), { maxLength: 6 }),
        (bom, text, cuts) => {
          const chunks = cut(bytes(`${bom ? "\uFEFF" : ""}${text}`), cuts);
          expect(decodeAll(chunks)).toBe(reference(chunks));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("replaces bytes that are not UTF-8 as TextDecoder does, wherever the chunks are cut", () => {
    const byte = fc.constantFrom(0x41, 0x80, 0xbf, 0xc2, 0xe2, 0xed, 0xa0, 0xef, 0xbb, 0xf0, 0xf4, 0xff);
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 12 }), fc.array(fc.nat(20), { maxLength: 4 }), (raw, cuts) => {
        const chunks = cut(new Uint8Array(raw), cuts);
        expect(decodeAll(chunks)).toBe(reference(chunks));
      }),
      { numRuns: 3000 },
    );
  });

  it("drops a byte-order mark cut across chunks, keeps one later on, and ends a cut-short character with U+FFFD", () => {
    const bom = bytes("\uFEFFhi \uFEFF");
    expect(decodeAll([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2)])).toBe("hi \uFEFF");
    const euro = bytes("€");
    expect(decodeAll([bytes("a"), euro.subarray(0, 2)])).toBe("a\uFFFD");
    expect(decodeAll([])).toBe("");
  });
});

describe("the stream readers over cut bytes", () => {
  const sse =
    '\uFEFFdata: {"a":"é€😀"}\n\n: keep-alive\n\nevent: error\r\ndata: x\r\n\r\n{"error":1}\ndata: last';

  it("read the same SSE events whatever the cuts, a byte-order mark at the start ignored", async () => {
    const whole = await collect(readSse(source([bytes(sse)])));
    expect(whole).toEqual<SseItem[]>([
      { id: undefined, event: undefined, data: '{"a":"é€😀"}' },
      { id: undefined, event: "error", data: "x" },
      { event: RAW_LINE, data: '{"error":1}' },
      { id: undefined, event: undefined, data: "last" },
    ] as SseItem[]);
    const data = bytes(sse);
    for (let i = 0; i <= data.length; i++) {
      expect(await collect(readSse(source(cut(data, [i, i + 1]))))).toEqual(whole);
    }
  });

  it("read the same NDJSON lines whatever the cuts", async () => {
    const data = bytes('\uFEFF{"a":"€"}\r\n\n{"b":"😀"}\n{"c":1}');
    for (let i = 0; i <= data.length; i++) {
      expect(await collect(readLines(source(cut(data, [i, i + 2]))))).toEqual([
        '{"a":"€"}',
        '{"b":"😀"}',
        '{"c":1}',
      ]);
    }
  });
});
