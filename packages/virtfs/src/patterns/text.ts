import { OWRITE } from "@ollie/ninep";
import type { FileContext, FileHandlers, OpenContext } from "../spec/context.js";
import { slice, toBuffer, WrittenBytes } from "./bytes.js";

type MaybePromise<T> = T | Promise<T>;

export interface TextOptions {
  /**
   * Makes the file writable: receives what a client wrote. Throw to refuse it; the client sees the error's
   * message.
   */
  write?: (text: string, ctx: FileContext) => MaybePromise<void>;
  /**
   * When `write` runs: "close" (default) once with everything written to one open, when it is clunked — so
   * `echo value > file` delivers whole values; "write" for each write as it arrives.
   */
  writeOn?: "close" | "write";
}

interface TextState {
  snapshot: Buffer;
  written: WrittenBytes;
}

/**
 * A file whose content is produced when it is opened and read at any offset from that snapshot, so a reader
 * never sees a value torn between two states. Optionally writable (see TextOptions).
 */
export function text(
  produce?: (ctx: OpenContext) => MaybePromise<string | Uint8Array>,
  options: TextOptions = {},
) {
  const { write, writeOn = "close" } = options;
  const handlers: FileHandlers<TextState> = {
    async open(ctx) {
      const reads = (ctx.mode & 3) !== OWRITE;
      const snapshot = produce && reads ? toBuffer(await produce(ctx)) : Buffer.alloc(0);
      return { snapshot, written: new WrittenBytes() };
    },
  };
  if (produce) handlers.read = ({ state, offset, count }) => slice(state.snapshot, offset, count);
  if (write) {
    handlers.write = async (ctx) => {
      if (writeOn === "write") await write(ctx.data.toString("utf8"), ctx);
      else ctx.state.written.put(ctx.offset, ctx.data);
      return ctx.data.length;
    };
    if (writeOn === "close") {
      handlers.close = async (ctx) => {
        if (ctx.state.written.size > 0) await write(ctx.state.written.text(), ctx);
      };
    }
  }
  return handlers;
}
