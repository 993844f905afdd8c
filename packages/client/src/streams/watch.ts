import type { NamespaceFiles, OpenFile } from "../namespace/files.js";

/**
 * An open wait file (`statewait`, `turnwait`, `bypass/wait`…): each `next()` is one blocking read that
 * answers once the value differs from the one this open last returned — the value at the open, at first —
 * so no change made after the open is missed. Iterating it yields each change until the wait fails (a killed
 * session answers its waiters with an error) or `signal` aborts; close it when done (leaving an iteration
 * closes it).
 */
export class Watch<T> implements AsyncIterable<T> {
  private constructor(
    private readonly file: OpenFile,
    private readonly parse: (text: string) => T,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Opens `path` for waiting: changes from now on are seen. */
  static async open<T>(
    files: NamespaceFiles,
    path: string,
    parse: (text: string) => T,
    signal?: AbortSignal,
  ): Promise<Watch<T>> {
    return new Watch(await files.open(path, undefined, signal), parse, signal);
  }

  /** Waits for the next change and answers the value it changed to. */
  async next(signal = this.signal): Promise<T> {
    return this.parse((await this.file.readAnswer(signal)).toString("utf8"));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      for (;;) yield await this.next();
    } finally {
      await this.close();
    }
  }

  /** Lets the wait go; a read blocked on it is answered with an error. */
  async close(): Promise<void> {
    await this.file.close(this.signal?.aborted === true);
  }
}
