import { createParser } from "eventsource-parser";
import { Utf8Text } from "./utf8-text.js";

/**
 * One SSE event as the parser gives it, or — with `event` set to RAW_LINE — a line that was not SSE at all
 * (the raw JSON error bodies some servers send inside a stream), its text in `data`.
 */
export interface SseItem {
  event?: string | undefined;
  data: string;
}

/** The `event` of an SseItem that is a raw, non-SSE line. */
export const RAW_LINE = "\u0000raw";

/**
 * Parses a byte stream as server-sent events, yielding the items of each chunk as one array (no per-event
 * promise, no queue). One long-lived UTF-8 decoder keeps characters split across chunks intact; comments
 * and keep-alives are dropped; a last event missing its blank line is still delivered at the end.
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseItem[]> {
  let batch: SseItem[] = [];
  const parser = createParser({
    onEvent: (e) => batch.push(e),
    onError: (err) => {
      const line = (err as { line?: string }).line;
      if (line !== undefined && line.trim() !== "") batch.push({ event: RAW_LINE, data: line });
    },
  });
  const text = new Utf8Text();
  for await (const chunk of body) {
    parser.feed(text.write(chunk));
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  parser.feed(`${text.end()}\n\n`);
  if (batch.length > 0) yield batch;
}
