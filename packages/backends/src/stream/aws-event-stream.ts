// Why not @smithy/eventstream-codec (AWS's, 4.5.2)? It re-exports @smithy/core/event-streams, so it installs
// ~8 MB (@smithy/core 6.7 MB, @smithy/types, tslib) for what is ~200 lines here. Its codec decodes only an
// already-delimited message; cutting a byte stream into messages is getChunkedStream (@smithy/core), which
// copies every frame twice (slice, then set), allocates whatever total_length says before any CRC check and
// with no 16 MiB cap, costs an async-iterator step per message, and throws plain Errors with no offset.
// Here: whole frames are views, a split frame is copied once, one batch per network chunk, errors say where.
import { crc32 } from "node:zlib";

/** A header value with the wire type it was sent as (AWS event-stream value types 0–9). */
export type EventStreamHeaderValue =
  | { type: "bool"; value: boolean }
  | { type: "byte" | "short" | "int32"; value: number }
  | { type: "int64"; value: bigint }
  | { type: "bytes"; value: Uint8Array }
  | { type: "string"; value: string }
  | { type: "timestamp"; value: Date }
  /** Lower-case 8-4-4-4-12 hex. */
  | { type: "uuid"; value: string };

/**
 * One decoded message. `payload` is a view into the received bytes (no copy); keeping it keeps the
 * network chunk it came in alive. A header name sent twice keeps its last value.
 */
export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Uint8Array;
}

/** The stream is not valid event-stream framing; the message says which check failed and where. */
export class EventStreamError extends Error {
  override name = "EventStreamError";
}

const PRELUDE = 12;
const OVERHEAD = 16;
const MAX_MESSAGE = 16 * 1024 * 1024;
const utf8 = new TextDecoder();

const u32 = (b: Uint8Array, i: number) =>
  ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;

/**
 * Checks the prelude at `at` (12 bytes must be there) and returns the message's total length. The CRC is
 * checked first: until it matches, the two lengths are noise and reporting them would mislead.
 */
function readPrelude(b: Uint8Array, at: number, offset: number): number {
  const expected = u32(b, at + 8);
  const actual = crc32(b.subarray(at, at + 8));
  if (expected !== actual) {
    throw new EventStreamError(
      `event-stream prelude CRC mismatch in the message at byte ${offset}: expected ${hex(expected)}, computed ${hex(actual)}`,
    );
  }
  const total = u32(b, at);
  if (total < OVERHEAD || total > MAX_MESSAGE) {
    throw new EventStreamError(
      `event-stream total_length ${total} at byte ${offset} is outside ${OVERHEAD}..${MAX_MESSAGE}`,
    );
  }
  const headersLength = u32(b, at + 4);
  if (headersLength > total - OVERHEAD) {
    throw new EventStreamError(
      `event-stream headers_length ${headersLength} at byte ${offset + 4} does not fit in a ${total}-byte message`,
    );
  }
  return total;
}

/** The rest of a message whose prelude readPrelude accepted; `frame` is exactly the message. */
function decodeFrame(frame: Uint8Array, offset: number): EventStreamMessage {
  const end = frame.length - 4;
  const expected = u32(frame, end);
  const actual = crc32(frame.subarray(0, end));
  if (expected !== actual) {
    throw new EventStreamError(
      `event-stream message CRC mismatch in the message at byte ${offset}: expected ${hex(expected)}, computed ${hex(actual)}`,
    );
  }
  const headersEnd = PRELUDE + u32(frame, 4);
  return {
    headers: readHeaders(frame, headersEnd, offset),
    payload: frame.subarray(headersEnd, end),
  };
}

/** Bytes of the value of each type (0–9), after the type byte; -1: a u16 length, then that many. */
const VALUE_SIZE = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];

function readHeaders(b: Uint8Array, end: number, offset: number): Record<string, EventStreamHeaderValue> {
  // No prototype, so a header named `__proto__` is an ordinary key.
  const headers: Record<string, EventStreamHeaderValue> = Object.create(null);
  let p = PRELUDE;
  while (p < end) {
    const entry = offset + p;
    const nameLength = b[p]!;
    if (nameLength === 0) throw headerError(entry, "the name is empty");
    const nameEnd = p + 1 + nameLength;
    if (nameEnd >= end) throw headerError(entry, PAST_END);
    const type = b[nameEnd]!;
    const size = VALUE_SIZE[type];
    if (size === undefined) throw headerError(entry, `unknown value type ${type}`);
    let at = nameEnd + 1;
    let valueEnd = at + size;
    if (size < 0) {
      if (at + 2 > end) throw headerError(entry, PAST_END);
      valueEnd = at + 2 + ((b[at]! << 8) | b[at + 1]!);
      at += 2;
    }
    if (valueEnd > end) throw headerError(entry, PAST_END);
    headers[utf8.decode(b.subarray(p + 1, nameEnd))] = headerValue(b, type, at, valueEnd);
    p = valueEnd;
  }
  return headers;
}

const PAST_END = "the value runs past the headers section";
const headerError = (at: number, what: string) =>
  new EventStreamError(`event-stream header at byte ${at}: ${what}`);

function headerValue(b: Uint8Array, type: number, at: number, end: number): EventStreamHeaderValue {
  switch (type) {
    case 0:
    case 1:
      return { type: "bool", value: type === 0 };
    case 2:
      return { type: "byte", value: (b[at]! << 24) >> 24 };
    case 3:
      return { type: "short", value: ((b[at]! << 24) | (b[at + 1]! << 16)) >> 16 };
    case 4:
      return { type: "int32", value: u32(b, at) | 0 };
    case 5:
      return { type: "int64", value: int64(b, at) };
    case 6:
      return { type: "bytes", value: b.subarray(at, end) };
    case 7:
      return { type: "string", value: utf8.decode(b.subarray(at, end)) };
    case 8:
      return { type: "timestamp", value: new Date(Number(int64(b, at))) };
    default:
      return { type: "uuid", value: uuid(b.subarray(at, end)) };
  }
}

function int64(b: Uint8Array, at: number): bigint {
  return BigInt.asIntN(64, (BigInt(u32(b, at)) << 32n) | BigInt(u32(b, at + 4)));
}

function uuid(b: Uint8Array): string {
  const h = Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Decodes one complete message (`bytes` must be exactly one frame), checking both CRCs. */
export function decodeEventStreamMessage(bytes: Uint8Array): EventStreamMessage {
  if (bytes.length < PRELUDE) {
    throw new EventStreamError(`event-stream message of ${bytes.length} bytes is shorter than its prelude`);
  }
  const total = readPrelude(bytes, 0, 0);
  if (total !== bytes.length) {
    throw new EventStreamError(
      `event-stream total_length ${total} does not match the ${bytes.length} bytes given`,
    );
  }
  return decodeFrame(bytes, 0);
}

/**
 * Splits a byte stream into event-stream messages, yielding the messages each chunk completes as one array.
 * Linear in the stream: messages wholly inside a chunk are decoded in place; only a message split across
 * chunks is copied, once, when its last byte arrives. Throws EventStreamError on bad framing or if the body
 * ends inside a message.
 */
export async function* readAwsEventStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<EventStreamMessage[]> {
  // Bytes of the one incomplete message, as received; `need` is its length once its prelude is in (else 0).
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let need = 0;
  let offset = 0; // stream offset of the first byte of the current message
  for await (const chunk of body) {
    const out: EventStreamMessage[] = [];
    let pos = 0;
    if (pendingBytes > 0) {
      if (need === 0 && pendingBytes + chunk.length >= PRELUDE) {
        need = readPrelude(gather(pending, chunk, PRELUDE), 0, offset);
      }
      if (need === 0 || pendingBytes + chunk.length < need) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        continue;
      }
      pos = need - pendingBytes;
      out.push(decodeFrame(gather(pending, chunk, need), offset));
      offset += need;
      pending = [];
      pendingBytes = 0;
      need = 0;
    }
    while (chunk.length - pos >= PRELUDE) {
      const total = readPrelude(chunk, pos, offset);
      if (chunk.length - pos < total) {
        need = total;
        break;
      }
      out.push(decodeFrame(chunk.subarray(pos, pos + total), offset));
      pos += total;
      offset += total;
    }
    if (pos < chunk.length) {
      pending.push(chunk.subarray(pos));
      pendingBytes = chunk.length - pos;
    }
    if (out.length > 0) yield out;
  }
  if (pendingBytes > 0) {
    const of = need > 0 ? `of ${need} ` : "";
    throw new EventStreamError(
      `event-stream body ended inside the message at byte ${offset}: ${pendingBytes} bytes ${of}received`,
    );
  }
}

/** The first `n` bytes of the pending chunks followed by `last`, copied into one array. */
function gather(pending: Uint8Array[], last: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let filled = 0;
  for (const piece of pending) {
    if (filled + piece.length >= n) {
      out.set(piece.subarray(0, n - filled), filled);
      return out;
    }
    out.set(piece, filled);
    filled += piece.length;
  }
  out.set(last.subarray(0, n - filled), filled);
  return out;
}
