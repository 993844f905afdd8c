import { Errno } from "../codec/linux/constants.js";
import type { Stat } from "../codec/types.js";
import { FrameWriter, statSize } from "../codec/writer.js";
import type { FidState } from "./fid-state.js";
import type { FileServer, RequestContext } from "./file-server.js";
import { refuse } from "./ninep-error.js";

function encodeStat(s: Stat): Buffer {
  const w = new FrameWriter(Buffer.allocUnsafe(statSize(s)));
  w.stat(s);
  return w.buf;
}

/**
 * One Tread of a directory, as read(5) defines it: offset 0 takes a fresh listing from the FileServer, any
 * other offset must continue exactly where the fid's previous read ended, and only whole entries are
 * returned. A count too small for the next entry is an error — an empty reply would read as the end.
 */
export async function readDirectory<A>(
  fs: FileServer<A>,
  f: FidState<A>,
  offset: bigint,
  count: number,
  call: RequestContext<A>,
): Promise<Buffer> {
  if (offset === 0n) {
    const stats = await fs.readdir(call);
    f.dir = { entries: stats.map(encodeStat), index: 0, offset: 0n };
  } else if (!f.dir || offset !== f.dir.offset) {
    throw refuse("bad offset in directory read", Errno.EINVAL);
  }
  const listing = f.dir!;
  let end = listing.index;
  let size = 0;
  while (end < listing.entries.length && size + listing.entries[end]!.length <= count) {
    size += listing.entries[end]!.length;
    end++;
  }
  if (end === listing.index && end < listing.entries.length) {
    throw refuse(`directory read count ${count} is too small for the next entry`, Errno.EINVAL);
  }
  const data = Buffer.concat(listing.entries.slice(listing.index, end), size);
  listing.index = end;
  listing.offset += BigInt(size);
  return data;
}
