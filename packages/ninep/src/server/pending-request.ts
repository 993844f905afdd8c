/** Called once when a request is aborted, with the reason (a DOMException named AbortError). */
export type AbortListener = (reason: unknown) => void;

/**
 * One request between its arrival and its reply. It costs little while it waits, since a blocked read may
 * wait for hours and a client may pipeline thousands of them: the AbortController is made only when a
 * handler asks for the signal (one costs about a kilobyte, its AbortSignal with a hidden class of its own),
 * and a handler that only needs to hear of the abort registers a listener instead (`onAbort`).
 */
export class PendingRequest {
  /** Tflush requests waiting for this one to be answered; their Rflush follows this reply. */
  flushes: PendingRequest[] | undefined;
  /** The session was reset or closed: the reply is dropped and nothing the handler did is committed. */
  discarded = false;
  private controller: AbortController | undefined;
  /** One listener alone, as a request usually has, or several. */
  private listeners: AbortListener | AbortListener[] | undefined;
  private abortReason: unknown = undefined;
  private aborted = false;

  constructor(readonly tag: number) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /**
   * Calls `listener` once when the request is aborted (at once if it already was); the function returned
   * removes it.
   */
  onAbort(listener: AbortListener): () => void {
    if (this.aborted) {
      listener(this.abortReason);
      return noop;
    }
    const held = this.listeners;
    this.listeners =
      held === undefined ? listener : Array.isArray(held) ? [...held, listener] : [held, listener];
    return () => {
      const now = this.listeners;
      if (now === listener) this.listeners = undefined;
      else if (Array.isArray(now)) this.listeners = now.filter((l) => l !== listener);
    };
  }

  /** A Tflush that waits for this request to be answered. */
  addFlush(flush: PendingRequest): void {
    this.flushes ??= [];
    this.flushes.push(flush);
  }

  /** Throws the abort reason if the request was aborted: a handler is not started for a request already
   * flushed. */
  throwIfAborted(): void {
    if (this.aborted) throw this.abortReason;
  }

  abort(reason: string): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = new DOMException(reason, "AbortError");
    this.controller?.abort(this.abortReason);
    const held = this.listeners;
    this.listeners = undefined;
    for (const listener of held === undefined ? [] : Array.isArray(held) ? held : [held]) {
      try {
        listener(this.abortReason);
      } catch (error) {
        // As an AbortSignal's listener would: it does not keep the others from hearing of the abort.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

const noop = () => {};
