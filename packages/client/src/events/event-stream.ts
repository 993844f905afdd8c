import { ORDWR } from "@ollie/ninep";
import type { NamespaceFiles, OpenFile } from "../namespace/files.js";
import { LineDecoder } from "../streams/line-decoder.js";
import type { OllieEvent } from "./event-types.js";
import { parseEvent } from "./parse-event.js";

/** Which of a session's events to follow. */
export interface EventsOptions {
  /**
   * A topic filter: patterns such as `agent.*.state` or `*.tool` (`*` is any run of characters, dots
   * included), as one string or a list. None: every event. A pattern olliesrv cannot read is refused.
   */
  topics?: string | readonly string[];
  /** Aborts the reads: the iteration then throws the signal's reason. */
  signal?: AbortSignal;
}

/**
 * A subscription to a session's events, open from the moment `Session.events()` resolved: nothing after it
 * is missed while it lasts (a reader that falls 10,000 events behind is told how many it lost, with a
 * `dropped` record). Iterate it once; it ends after the session's `kill` record. Leaving the iteration, or
 * `close()`, ends the subscription.
 */
export class EventStream implements AsyncIterable<OllieEvent> {
  private constructor(
    private readonly file: OpenFile,
    private readonly signal: AbortSignal | undefined,
  ) {}

  static async open(files: NamespaceFiles, path: string, options: EventsOptions = {}): Promise<EventStream> {
    const { signal } = options;
    const file = await files.open(path, ORDWR, signal);
    const topics = typeof options.topics === "string" ? options.topics : (options.topics ?? []).join(" ");
    try {
      if (topics.trim() !== "") await file.write(topics, signal);
    } catch (error) {
      await file.close(signal?.aborted === true);
      throw error;
    }
    return new EventStream(file, signal);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<OllieEvent> {
    const lines = new LineDecoder();
    try {
      for (;;) {
        const chunk = await this.file.read(0, this.signal);
        if (chunk.length === 0) return;
        for (const line of lines.push(chunk)) yield parseEvent(line, this.file.path);
      }
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    await this.file.close(this.signal?.aborted === true);
  }
}
