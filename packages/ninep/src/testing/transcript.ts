import type { Duplex } from "node:stream";
import { decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { formatMessage } from "../codec/format.js";
import { FrameReader } from "../codec/frame-reader.js";
import { parseMessage } from "./parse-message.js";
import { type Token, tokenize, tokensMatch } from "./tokens.js";

export interface TranscriptOptions {
  /** How long to wait for each group of replies (default 2000 ms). */
  timeoutMs?: number;
}

/** A transcript step that did not go as written. */
export class TranscriptError extends Error {
  override readonly name = "TranscriptError";
}

interface Line {
  number: number;
  text: string;
}

/** Collects replies from a stream as text lines, and notices when the stream ends. */
class ReplyQueue {
  readonly replies: string[] = [];
  ended = false;
  private readonly reader = new FrameReader(0xffffffff);
  private wake: (() => void) | null = null;

  constructor(stream: Duplex) {
    stream.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
      for (let frame = this.reader.next(); frame; frame = this.reader.next()) {
        // Replies read the same in both dialects, and 9P2000.L adds its own numbers.
        this.replies.push(formatMessage(decodeMessage(frame, "9P2000.L")));
      }
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    stream.on("end", end);
    stream.on("close", end);
    stream.on("error", end);
  }

  /** Waits until `n` replies are queued, the stream ends, or the time runs out. */
  async waitFor(n: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.replies.length < n && !this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}

/**
 * Plays a 9P conversation against a server, in the style of 9fans/go's srv9p transcripts. Each line is a
 * message in the text form of `formatMessage`: T-lines are sent as written; a run of consecutive R-lines
 * is matched, as an unordered set, against the next replies (the word `*` matches any one token). Other
 * lines: `send MESSAGE` sends any message (even an R-message); `raw HEX` sends bytes as they are; `sleep MS` pauses; `closed` expects the server to drop the connection; blank lines
 * and `#` comments are ignored. After the last line the client ends its side and any reply still arriving
 * is an error.
 */
export async function runTranscript(
  stream: Duplex,
  script: string,
  options: TranscriptOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const queue = new ReplyQueue(stream);
  const lines: Line[] = script
    .split("\n")
    .map((text, i) => ({ number: i + 1, text: text.trim() }))
    .filter((l) => l.text !== "" && !l.text.startsWith("#"));
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.text.startsWith("R")) {
      const group: Line[] = [];
      while (i < lines.length && lines[i]!.text.startsWith("R")) group.push(lines[i++]!);
      await queue.waitFor(group.length, timeoutMs);
      matchGroup(group, queue.replies.splice(0, group.length));
      continue;
    }
    i++;
    if (line.text === "closed") {
      await queue.waitFor(Number.POSITIVE_INFINITY, timeoutMs);
      if (!queue.ended) throw new TranscriptError(`line ${line.number}: the server kept the connection open`);
      continue;
    }
    if (line.text.startsWith("sleep ")) {
      await new Promise((resolve) => setTimeout(resolve, Number(line.text.slice(6))));
      continue;
    }
    if (line.text.startsWith("raw ")) {
      stream.write(Buffer.from(line.text.slice(4).replace(/\s+/g, ""), "hex"));
      continue;
    }
    let frame: Buffer;
    try {
      frame = encodeMessage(parseMessage(line.text.replace(/^send /, "")));
    } catch (err) {
      throw new TranscriptError(`line ${line.number}: ${(err as Error).message}`);
    }
    stream.write(frame);
  }
  if (!queue.ended) stream.end();
  await queue.waitFor(Number.POSITIVE_INFINITY, timeoutMs);
  if (queue.replies.length > 0) {
    throw new TranscriptError(`unexpected replies after the transcript:\n  ${queue.replies.join("\n  ")}`);
  }
}

function matchGroup(group: Line[], actual: string[]): void {
  const describe = () =>
    `expected (in any order):\n  ${group.map((l) => l.text).join("\n  ")}\ngot:\n  ${actual.join("\n  ") || "(nothing)"}`;
  if (actual.length < group.length) {
    throw new TranscriptError(`line ${group[0]!.number}: too few replies; ${describe()}`);
  }
  const remaining: Token[][] = actual.map((a) => tokenize(a));
  for (const line of group) {
    const expected = tokenize(line.text);
    const at = remaining.findIndex((a) => tokensMatch(expected, a));
    if (at < 0)
      throw new TranscriptError(`line ${line.number}: no reply matches '${line.text}'; ${describe()}`);
    remaining.splice(at, 1);
  }
}
