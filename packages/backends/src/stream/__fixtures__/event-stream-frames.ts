import { crc32 } from "node:zlib";
import {
  type EventStreamHeaderValue,
  type EventStreamMessage,
  readAwsEventStream,
} from "../aws-event-stream.js";

export const utf8 = (text: string) => new TextEncoder().encode(text);
export const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
export const be32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** A frame built by hand around any header section, with correct CRCs unless the lengths are overridden. */
export function rawFrame(
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
export function entry(name: string, header: EventStreamHeaderValue): Uint8Array {
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

export async function* from(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** The batches the reader yields for these chunks. */
export async function batches(chunks: Uint8Array[]): Promise<EventStreamMessage[][]> {
  const out: EventStreamMessage[][] = [];
  for await (const batch of readAwsEventStream(from(chunks))) out.push(batch);
  return out;
}

/** What reading these chunks throws, if anything. */
export async function failure(chunks: Uint8Array[]): Promise<unknown> {
  try {
    await batches(chunks);
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Splits `stream` into consecutive pieces of the given sizes, cycling through them. */
export function rechunk(stream: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, i = 0; at < stream.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(stream.subarray(at, at + size));
    at += size;
  }
  return out;
}
