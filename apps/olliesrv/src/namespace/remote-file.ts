import type { File } from "@ollie/ninep";
import type { FileHandlers } from "@ollie/virtfs";

/**
 * A file that is another server's (toolsrv's), read through olliesrv's connection: each open here is an
 * open there, made by `open`, and reads are its reads — so a file that blocks there (`decisionwait`, a
 * process's `output`) blocks here the same way, and a flush or clunk here ends the read there.
 */
export function remoteFile(open: (signal: AbortSignal) => Promise<File>): FileHandlers<File> {
  return {
    open: ({ signal }) => open(signal),
    read: ({ state, offset, count, signal }) => state.read(offset, count, signal),
    close: async ({ state }) => {
      await state.close().catch(() => {});
    },
  };
}
