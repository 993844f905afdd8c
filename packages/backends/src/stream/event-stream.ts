import type { Readable } from "node:stream";
import { BackendError, type ErrorSource, TransientError } from "../errors.js";
import { abortReason } from "../http/http-request.js";
import type { StreamEvent } from "../types.js";
import type { ReplyBuilder } from "./reply-builder.js";

/** What turns a provider's wire items into events. `accept` and `end` may throw typed errors. */
export interface WireDecoder<I> {
  readonly builder: ReplyBuilder;
  accept(item: I): void;
  /** The body ended: finish the reply, or throw if the stream stopped before its terminal event. */
  end(): void;
}

export type FrameReader<I> = (body: AsyncIterable<Uint8Array>) => AsyncGenerator<I[]>;

/** An opened response: its body, how the body is framed, and what decodes the frames. */
export interface OpenedStream<I> {
  body: Readable;
  read: FrameReader<I>;
  decoder: WireDecoder<I>;
}

/**
 * The events of one streaming response. The request is made on the first `next()`; after that, each
 * network chunk is framed (SSE or NDJSON), decoded, and its events handed out from a buffer — a plain
 * array walked by index, so a burst of events costs one resolved promise each and no queue shifting. The
 * body is closed when the reply is done, fails, is abandoned (`return`), or `signal` aborts.
 */
/** How long the end of a response may take once the reply it carries is complete. */
const DRAIN_MS = 1000;

export class EventStream<I> implements AsyncIterableIterator<StreamEvent> {
  private buffer: StreamEvent[] = [];
  private head = 0;
  private body: Readable | undefined;
  private decoder: WireDecoder<I> | undefined;
  private reader: AsyncIterator<I[]> | undefined;
  private finished = false;
  private readonly onAbort = () => this.body?.destroy();

  constructor(
    private readonly source: ErrorSource,
    private readonly open: () => Promise<OpenedStream<I>>,
    private readonly signal?: AbortSignal,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.head < this.buffer.length)
      return Promise.resolve({ value: this.buffer[this.head++]!, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return this.pull();
  }

  async return(): Promise<IteratorResult<StreamEvent>> {
    this.close();
    return { value: undefined, done: true };
  }

  private async pull(): Promise<IteratorResult<StreamEvent>> {
    try {
      if (!this.reader) {
        this.signal?.throwIfAborted();
        const opened = await this.open();
        // Abandoned (`return`) while the request was being made: nobody will read the response.
        if (this.finished) {
          opened.body.destroy();
          return { value: undefined, done: true };
        }
        this.body = opened.body;
        this.decoder = opened.decoder;
        this.signal?.addEventListener("abort", this.onAbort, { once: true });
        this.reader = opened.read(this.body)[Symbol.asyncIterator]();
      }
      const decoder = this.decoder!;
      while (!this.refill()) {
        const chunk = await this.reader.next();
        if (chunk.done) {
          decoder.end();
          this.refill();
          this.close();
          break;
        }
        for (const item of chunk.value) decoder.accept(item);
      }
    } catch (err) {
      this.close();
      if (this.signal?.aborted) throw abortReason(this.signal);
      if (err instanceof BackendError) throw err;
      throw new TransientError({
        ...this.source,
        providerMessage: `the stream failed: ${(err as Error).message}`,
      });
    }
    return this.next();
  }

  /** Moves decoded events into the buffer; false when there were none. */
  private refill(): boolean {
    const builder = this.decoder!.builder;
    const events = builder.drain();
    if (events.length === 0) return false;
    this.buffer = events;
    this.head = 0;
    if (builder.isDone) this.finish();
    return true;
  }

  /**
   * The reply is complete, but the response may not have ended (OpenAI's `[DONE]` line, the chunked
   * terminator): the rest is read in the background rather than the body destroyed, so that the connection
   * goes back to the pool instead of being reset (which also costs undici an abort error per request). A
   * response still going a second later is cut.
   */
  private finish(): void {
    const [body, reader] = [this.body, this.reader];
    if (!body || !reader || body.readableEnded) {
      this.close();
      return;
    }
    this.finished = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    const cut = setTimeout(() => body.destroy(), DRAIN_MS);
    cut.unref();
    void (async () => {
      try {
        while (!(await reader.next()).done);
      } catch {
        // Cut, or failed after the reply was complete: nothing is lost.
      } finally {
        clearTimeout(cut);
      }
    })();
  }

  private close(): void {
    if (this.finished) return;
    this.finished = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.body?.destroy();
  }
}
