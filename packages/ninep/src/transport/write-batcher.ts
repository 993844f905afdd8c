import type { Duplex } from "node:stream";

/**
 * Gathers the messages written during one turn of the event loop into a single writev: many small replies
 * (or requests) then cost one system call instead of one each.
 */
export class WriteBatcher {
  private corked = false;

  constructor(private readonly stream: Duplex) {}

  write(frame: Buffer): void {
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      setImmediate(() => this.flush());
    }
    this.stream.write(frame);
  }

  /** Hands what has been written so far to the operating system now. */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.stream.uncork();
  }
}
