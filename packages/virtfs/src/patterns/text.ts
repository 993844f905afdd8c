import { Errno, NinepError, OWRITE } from "@ollie/ninep";
import type { FileContext, FileHandlers, OpenContext, WriteContext } from "../spec/context.js";
import { slice, toBuffer, WrittenBytes } from "./bytes.js";
import { producedLength } from "./produced-length.js";

export interface TextOptions {
  /**
   * Makes the file writable: receives what a client wrote. Throw to refuse it; the client sees the error's
   * message. What it returns answers a read when `answerReads` is on.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a writer that answers nothing may be any void function.
  write?: (text: string, ctx: FileContext) => string | undefined | void | Promise<string | undefined | void>;
  /**
   * When `write` runs: "close" (default) once with everything written to one open, when it is clunked — so
   * `echo value > file` delivers whole values; "write" for each write as it arrives.
   */
  writeOn?: "close" | "write";
  /**
   * With writeOn "close": a read after writes on the same open delivers them at once, and reads as what
   * `write` returned — a request and its answer on one open, as a clone file gives a new name. Writes after
   * that read make a new value, so `ninep rdwr` sends each line and shows each answer.
   */
  answerReads?: boolean;
  /**
   * The most bytes one open may write (default 1 MiB): a write that would go past it is refused, before
   * anything is stored, with "this file takes at most 1 MiB" (or `tooLong`'s message).
   */
  maxBytes?: number;
  tooLong?: (limit: string) => string;
  /**
   * Whether a stat of the file — and a listing of its directory, whose entries are stats in 9P2000 — calls
   * `produce` to report the length of what a read would return now (default true). Say false when producing
   * costs much, waits, or acts (asks another server, wakes something up): stat then reports 0, as most
   * synthetic files do, except for an open fid, whose snapshot it knows.
   */
  size?: boolean;
}

export const DEFAULT_TEXT_MAX_BYTES = 1024 * 1024;

const sizeText = (n: number) =>
  n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;

interface TextState {
  snapshot: Buffer;
  written: WrittenBytes;
  /** What `write` answered the last delivery a read made (answerReads). */
  answer?: Buffer;
  /** A write went past `maxBytes`: what this open wrote is not delivered. */
  refused?: NinepError;
  /** The open asked for truncation (OTRUNC): what the file held is no part of what it writes. */
  truncated: boolean;
  /** What the file held, once a write past what this open wrote needed it. */
  before?: Buffer;
}

/**
 * A file whose content is produced when it is opened and read at any offset from that snapshot, so a reader
 * never sees a value torn between two states; stat reports its length (see `size`). Optionally writable
 * (see TextOptions).
 */
export function text(
  produce?: (ctx: OpenContext) => string | Uint8Array | Promise<string | Uint8Array>,
  options: TextOptions = {},
): FileHandlers<unknown> {
  const {
    write,
    writeOn = "close",
    maxBytes = DEFAULT_TEXT_MAX_BYTES,
    answerReads = false,
    size = true,
  } = options;
  const tooLong = options.tooLong ?? ((limit: string) => `this file takes at most ${limit}`);
  const handlers: FileHandlers<TextState> = {
    async open(ctx) {
      const reads = (ctx.mode & 3) !== OWRITE;
      const snapshot = produce && reads ? toBuffer(await produce(ctx)) : Buffer.alloc(0);
      return { snapshot, written: new WrittenBytes(), truncated: ctx.truncate };
    },
  };
  // A stat reports what a read would return: this open's snapshot (or answer) on an open fid, else what
  // `produce` gives now.
  handlers.length = (ctx) => {
    if (ctx.state) return (ctx.state.answer ?? ctx.state.snapshot).length;
    return produce && size ? producedLength(produce, ctx) : 0;
  };
  if (produce) handlers.read = ({ state, offset, count }) => slice(state.snapshot, offset, count);
  if (write && answerReads && writeOn === "close") {
    handlers.read = async (ctx) => {
      const { state, offset, count } = ctx;
      if (state.refused) throw state.refused;
      if (offset === 0 && state.written.size > 0) {
        const delivered = state.written.text();
        state.written = new WrittenBytes();
        state.answer = toBuffer((await write(delivered, ctx)) ?? "");
      }
      return slice(state.answer ?? state.snapshot, offset, count);
    };
  }
  if (write) {
    handlers.write = async (ctx) => {
      if (ctx.offset + ctx.data.length > maxBytes) {
        ctx.state.refused = new NinepError(tooLong(sizeText(maxBytes)), { errno: Errno.EFBIG });
        throw ctx.state.refused;
      }
      if (writeOn === "write") await write(ctx.data.toString("utf8"), ctx);
      else {
        if (produce && ctx.offset > ctx.state.written.size && !ctx.state.truncated) {
          await keepBefore(produce, ctx);
        }
        ctx.state.written.put(ctx.offset, ctx.data);
      }
      return ctx.data.length;
    };
    if (writeOn === "close") {
      handlers.close = async (ctx) => {
        if (ctx.state.refused) throw ctx.state.refused;
        if (ctx.state.written.size > 0) await write(ctx.state.written.text(), ctx);
      };
    }
  }
  return handlers;
}

/**
 * Before a write past what this open wrote, puts what the file held up to it in front, as a file would: an
 * append (`>>` on a mount writes at the length stat reported) adds to the content instead of following NUL
 * bytes. An open that read uses its snapshot; one that only writes asks `produce` once.
 */
async function keepBefore(
  produce: (ctx: OpenContext) => string | Uint8Array | Promise<string | Uint8Array>,
  ctx: WriteContext<TextState>,
): Promise<void> {
  const { state } = ctx;
  if (!state.before) {
    const reads = (ctx.mode & 3) !== OWRITE;
    state.before = reads
      ? state.snapshot
      : toBuffer(
          await produce({
            uname: ctx.uname,
            mode: ctx.mode,
            truncate: false,
            get signal() {
              return ctx.signal;
            },
          }),
        );
  }
  const from = state.written.size;
  state.written.put(from, state.before.subarray(from, ctx.offset));
}
