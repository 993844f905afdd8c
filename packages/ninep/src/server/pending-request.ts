/**
 * One request between its arrival and its reply. The AbortController is made only when a handler asks for
 * the signal, since most requests finish without anyone looking at it.
 */
export class PendingRequest {
  /** Tflush requests waiting for this one to be answered; their Rflush follows this reply. */
  readonly flushes: PendingRequest[] = [];
  /** The session was reset or closed: the reply is dropped and nothing the handler did is committed. */
  discarded = false;
  private controller: AbortController | null = null;
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
  }
}
