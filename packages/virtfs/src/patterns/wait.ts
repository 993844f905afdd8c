import type { FileHandlers, ReadContext } from "../spec/context.js";
import { slice } from "./bytes.js";
import { type Watchable, WatchedValue } from "./watched-value.js";

export interface WaitOptions<T> {
  /** How a value is shown (default: String(value) and a newline). */
  format?: (value: T) => string;
  /** The first read of an open returns the current value at once instead of waiting for a change. */
  immediate?: boolean;
}

interface WaitState {
  /** The value this open last returned (or saw when it was opened). */
  last: string;
  shown: Buffer;
  fresh: boolean;
}

/**
 * A file whose read blocks until the value differs from the one this fid last returned, then returns the new
 * value (`statewait`). A read at offset 0 waits; reads past it finish the value and then give end-of-file, so
 * `cat` prints one change and exits, while a program re-reading offset 0 on one fid sees every change it is
 * not too slow for.
 */
export function wait<T>(source: Watchable<T>, options: WaitOptions<T> = {}): FileHandlers<unknown> {
  const format = options.format ?? ((v: T) => `${String(v)}\n`);
  // A blocked read is a promise reaction on the next change, not a suspended frame, and a WatchedValue hears
  // of its abort through the request's own listener, which costs far less than its AbortSignal: clients
  // pipeline blocking reads by the thousand. Another source gets the signal.
  const read = (ctx: ReadContext<WaitState>): Buffer | Promise<Buffer> => {
    const { state, offset, count } = ctx;
    if (offset > 0) return slice(state.shown, offset, count);
    if (!(options.immediate && state.fresh) && format(source.get()) === state.last) {
      const changed = source instanceof WatchedValue ? source.changed(ctx) : source.changed(ctx.signal);
      return changed.then(() => read(ctx));
    }
    state.fresh = false;
    state.last = format(source.get());
    state.shown = Buffer.from(state.last, "utf8");
    return slice(state.shown, 0, count);
  };
  return {
    open: () => ({ last: format(source.get()), shown: Buffer.alloc(0), fresh: true }),
    read,
    version: () => source.version ?? 0,
  };
}
