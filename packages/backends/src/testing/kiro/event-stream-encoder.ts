import { crc32 } from "node:zlib";

/**
 * One AWS event-stream message as Kiro sends it: string headers only (value type 7), in the given key
 * order, then the payload (a string is sent as UTF-8). Both CRC32s are filled in. The result may share its
 * ArrayBuffer with other data (Buffer's pool): read `.buffer` only with `byteOffset`.
 */
export function encodeEventStreamMessage(
  headers: Record<string, string>,
  payload: string | Uint8Array,
): Uint8Array {
  const entries = Object.entries(headers);
  let headersLength = 0;
  for (const [name, value] of entries) {
    const nameLength = Buffer.byteLength(name);
    const valueLength = Buffer.byteLength(value);
    // The format cannot carry these; a mock that tried would send frames no client can read.
    if (nameLength === 0 || nameLength > 0xff || valueLength > 0xffff) {
      throw new RangeError(`header ${JSON.stringify(name)} does not fit an event-stream message`);
    }
    headersLength += 4 + nameLength + valueLength;
  }
  const payloadLength = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  const total = 16 + headersLength + payloadLength;
  // Strings are written straight into the frame (TextEncoder.encode would allocate an array for each), and
  // the frame is a slice of Buffer's pool (a fresh ArrayBuffer costs more than the rest); every byte is set.
  const out = Buffer.allocUnsafe(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headersLength, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  let p = 12;
  for (const [name, value] of entries) {
    p = out.writeUInt8(Buffer.byteLength(name), p);
    p += out.write(name, p);
    p = out.writeUInt8(7, p);
    const valueLength = out.write(value, p + 2);
    p = out.writeUInt16BE(valueLength, p) + valueLength;
  }
  if (typeof payload === "string") out.write(payload, p);
  else out.set(payload, p);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  // A plain Uint8Array: callers compare and slice it as one, not with Buffer's semantics.
  return new Uint8Array(out.buffer, out.byteOffset, total);
}
