import type { Readable } from "node:stream";
import { BackendError, TransientError } from "../errors.js";
import type { StreamEvent } from "../types.js";
import type { ReplyBuilder } from "./reply-builder.js";

/** What turns a provider's wire items into events. `accept` and `end` may throw typed errors. */
export interface WireDecoder<I> {
  readonly builder: ReplyBuilder;
  accept(item: I): void;
  /** The body ended: finish the reply, or throw if the stream stopped before its terminal event. */
  end(): void;
}

/**
 * Reads a streaming response body through a framing reader (SSE or NDJSON) and a provider decoder, yielding
 * the events of each network chunk. Closes the body when the stream ends, fails, is abandoned by the
 * consumer, or `signal` aborts.
 */
export async function* drive<I>(
  provider: string,
  body: Readable,
  read: (body: AsyncIterable<Uint8Array>) => AsyncGenerator<I[]>,
  decoder: WireDecoder<I>,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const onAbort = () => body.destroy();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const items of read(body)) {
      for (const item of items) decoder.accept(item);
      yield* decoder.builder.drain();
      if (decoder.builder.isDone) return;
    }
    decoder.end();
    yield* decoder.builder.drain();
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? new DOMException("This operation was aborted", "AbortError");
    if (err instanceof BackendError) throw err;
    throw new TransientError({ provider, providerMessage: `the stream failed: ${(err as Error).message}` });
  } finally {
    signal?.removeEventListener("abort", onAbort);
    body.destroy();
  }
}
