import type { FileHandlers } from "../spec/context.js";
import type { AppendBuffer } from "./append-buffer.js";

export interface LogOptions {
  /** Where a new open starts reading: the oldest retained byte (default) or the end (`tail -f`). */
  from?: "start" | "end";
}

interface LogState {
  /** Where this open reads next, in stream positions. */
  position: number;
  /** The file offset a reader continuing in order will ask for next. */
  expected: number;
}

/**
 * An append-only file over an AppendBuffer: each open reads at its own position, a read at the end waits for
 * the next append (`tail -f` over 9P), and a reader that fell behind what is retained continues from the
 * oldest byte still kept — it gets what is retained and no more. Reading in order continues where the last
 * read ended; a read at another offset seeks to that stream position.
 */
export function log(stream: AppendBuffer, options: LogOptions = {}): FileHandlers<unknown> {
  const handlers: FileHandlers<LogState> = {
    open: () => ({ position: options.from === "end" ? stream.end : stream.start, expected: 0 }),
    async read(ctx) {
      const { state, offset, count } = ctx;
      let position = offset === state.expected ? state.position : offset;
      if (position < stream.start) position = stream.start;
      await stream.waitPast(position, ctx);
      if (position < stream.start) position = stream.start;
      const data = stream.read(position, count);
      state.position = position + data.length;
      state.expected = offset + data.length;
      return data;
    },
    version: () => stream.version,
  };
  return handlers;
}
