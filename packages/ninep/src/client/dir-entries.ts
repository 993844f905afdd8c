import { FrameCursor } from "../codec/reader.js";
import type { Stat } from "../codec/types.js";

/** Decodes the stat entries of one directory read. */
export function parseDirEntries(data: Uint8Array): Stat[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const c = new FrameCursor(buf, 0, buf.length);
  const stats: Stat[] = [];
  while (c.remaining > 0) stats.push(c.stat());
  return stats;
}
