import { randomBytes } from "node:crypto";
import type { PageOp } from "./page-ops.js";

/** One message of a stream: its number, and what it says. */
export interface StreamMessage {
  seq: number;
  event: "hello" | "patch";
  data: string;
}

/** How much a stream keeps for a browser that comes back: the last messages, up to a count and a size. */
const RING_MESSAGES = 4096;
const RING_BYTES = 4 * 1024 * 1024;

/**
 * The live stream of one page, apart from the connection that carries it. Its feeds go on while the browser
 * is away (a phone asleep, a network blip), keeping what they say in a ring; a browser that comes back with
 * `Last-Event-ID` is given what it missed, in order, and goes on. The id of each message is the stream's id
 * and the message's number.
 */
export class BrowserStream {
  readonly id = randomBytes(12).toString("base64url");
  private seq = 0;
  private readonly ring: StreamMessage[] = [];
  private ringBytes = 0;
  private sink: ((message: StreamMessage) => void) | undefined;
  /** Ends the connection that carries the stream now. */
  private end: (() => void) | undefined;

  /** Sends ops to the page (now, or when it comes back). */
  send(ops: PageOp[]): void {
    if (ops.length > 0) this.push("patch", JSON.stringify(ops));
  }

  /** Says which stream this is, and whether the page must take what follows as a fresh start. */
  hello(fresh: boolean): void {
    this.push("hello", JSON.stringify({ stream: this.id, fresh }));
  }

  /** Whether the ring still holds everything after message `after`: a browser can go on from there. */
  holds(after: number): boolean {
    return after <= this.seq && after + 1 >= (this.ring[0]?.seq ?? this.seq + 1);
  }

  /**
   * Carries the stream to a connection: first what came after `after` (see `holds`), then what comes. A
   * connection that carried it before (half open: the browser came back on another) is ended.
   */
  attach(sink: (message: StreamMessage) => void, after: number, end: () => void): void {
    this.end?.();
    this.sink = sink;
    this.end = end;
    for (const message of this.ring) if (message.seq > after) sink(message);
  }

  get attached(): boolean {
    return this.sink !== undefined;
  }

  /** The connection `sink` ended: whether it was the one carrying the stream (a later one may be). */
  detach(sink: (message: StreamMessage) => void): boolean {
    if (this.sink !== sink) return false;
    this.sink = undefined;
    this.end = undefined;
    return true;
  }

  /** Ends the connection carrying the stream, if one does: the stream is over. */
  close(): void {
    this.end?.();
    this.sink = undefined;
    this.end = undefined;
  }

  /** `STREAM.SEQ`, as the browser sends it back in `Last-Event-ID`. */
  eventId(message: StreamMessage): string {
    return `${this.id}.${message.seq}`;
  }

  private push(event: StreamMessage["event"], data: string): void {
    const message = { seq: ++this.seq, event, data };
    this.ring.push(message);
    this.ringBytes += data.length;
    while (this.ring.length > RING_MESSAGES || this.ringBytes > RING_BYTES)
      this.ringBytes -= this.ring.shift()?.data.length ?? 0;
    this.sink?.(message);
  }
}

/** The stream and number a `Last-Event-ID` names; undefined for what is not one of ours. */
export function parseEventId(id: string | undefined): { stream: string; seq: number } | undefined {
  const match = /^([A-Za-z0-9_-]{16})\.(\d{1,15})$/.exec(id ?? "");
  return match ? { stream: match[1]!, seq: Number(match[2]) } : undefined;
}
