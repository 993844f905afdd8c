import { Waiters } from "@ollie/virtfs";

/** The most events one subscriber may have waiting; past it the oldest are dropped, and it is told how many. */
export const MAX_WAITING_EVENTS = 10_000;

/** A pattern of a topic filter: letters, digits, `_`, `-`, `.` and the wildcard `*`. */
const PATTERN = /^[A-Za-z0-9_.*-]+$/;

/**
 * A topic filter: patterns separated by spaces, commas or newlines, an event passing when its topic matches
 * any. `*` stands for any run of characters, dots included (`agent.*.state`, `*.tool`, `session.*`); the
 * rest is matched as it is. Nothing (an empty filter) passes everything. Throws on a pattern that is not one.
 */
export function parseTopicFilter(text: string): ((topic: string) => boolean) | undefined {
  const patterns = text.split(/[\s,]+/).filter(Boolean);
  if (patterns.length === 0) return undefined;
  const bad = patterns.find((p) => !PATTERN.test(p));
  if (bad !== undefined)
    throw new Error(`'${bad}' is not a topic pattern (letters, digits, '_', '-', '.' and the wildcard '*')`);
  const quote = (p: string) => p.replace(/[.+?^${}()|[\]\\-]/g, "\\$&");
  const regex = new RegExp(`^(?:${patterns.map((p) => quote(p).replaceAll("*", ".*")).join("|")})$`);
  return (topic) => regex.test(topic);
}

/** One observer of a bus: the events that passed its filter, waiting to be read, in order. */
export class Subscription {
  /** Each waiting event's line, with its topic kept for a filter set later. */
  private waiting: Array<{ topic: string; line: string }> = [];
  private dropped = 0;
  /** Readers waiting for an event, or for the end. */
  private readonly readers = new Waiters();
  private ended = false;
  private filter: ((topic: string) => boolean) | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly max = MAX_WAITING_EVENTS,
  ) {}

  /** Sets the filter: what waits already and does not pass it is dropped too. */
  setFilter(filter: ((topic: string) => boolean) | undefined): void {
    this.filter = filter;
    if (filter) this.waiting = this.waiting.filter((e) => filter(e.topic));
  }

  /** Takes an event (as its JSON line), if it passes the filter. */
  offer(topic: string, line: string): void {
    if (this.ended || (this.filter && !this.filter(topic))) return;
    this.waiting.push({ topic, line });
    if (this.waiting.length > this.max) {
      this.waiting.shift();
      this.dropped++;
    }
    this.readers.wake();
  }

  /** No more events come (the session was killed): once those waiting are read, reads end. */
  end(): void {
    this.ended = true;
    this.readers.wake();
  }

  /**
   * The next lines, as many as there are (a line saying how many were dropped first, if some were); waits
   * for one when none is waiting. Undefined once the bus has ended and nothing waits.
   */
  async next(signal: AbortSignal): Promise<string | undefined> {
    while (this.waiting.length === 0 && this.dropped === 0) {
      if (this.ended) return undefined;
      await this.readers.wait(signal);
    }
    const lines = this.waiting.map((e) => e.line);
    this.waiting = [];
    if (this.dropped > 0) {
      const time = new Date().toISOString();
      lines.unshift(`${JSON.stringify({ topic: "events.dropped", time, count: this.dropped })}\n`);
      this.dropped = 0;
    }
    return lines.join("");
  }

  close(): void {
    this.bus.unsubscribe(this);
  }
}

/**
 * A session's events, by topic, for observers (its `events` file): each is a JSON line with the topic, a
 * number counting the session's events, the time, and the event's own fields. See NAMESPACE.md for the topics.
 */
export class EventBus {
  private readonly subscribers = new Set<Subscription>();
  private seq = 0;
  private ended = false;

  /** Observers now. */
  get size(): number {
    return this.subscribers.size;
  }

  subscribe(max?: number): Subscription {
    const sub = new Subscription(this, max);
    if (this.ended) sub.end();
    else this.subscribers.add(sub);
    return sub;
  }

  unsubscribe(sub: Subscription): void {
    this.subscribers.delete(sub);
  }

  /** Publishes an event to whoever observes (nothing is built when nobody does). */
  publish(topic: string, fields: object = {}): void {
    if (this.subscribers.size === 0 || this.ended) return;
    const line = this.line(topic, fields);
    for (const sub of this.subscribers) sub.offer(topic, line);
  }

  /** The last event: observers read what waits, then the end. */
  end(topic: string, fields: object = {}): void {
    this.publish(topic, fields);
    this.ended = true;
    for (const sub of this.subscribers) sub.end();
    this.subscribers.clear();
  }

  /** An event as a line: `{"topic":…,"seq":…,"time":…,…fields}`; errors become their messages. */
  line(topic: string, fields: object): string {
    const { topic: _t, seq: _s, time: _m, ...rest } = fields as Record<string, unknown>;
    const event = { topic, seq: ++this.seq, time: new Date().toISOString(), ...rest };
    try {
      return `${JSON.stringify(event, (_key, value: unknown) => (value instanceof Error ? value.message : value))}\n`;
    } catch (error) {
      const { topic: t, seq, time } = event;
      return `${JSON.stringify({ topic: t, seq, time, unserializable: (error as Error).message })}\n`;
    }
  }
}

/**
 * Publishes an agent's event as `agent.NAME.TYPE` (`agent.main.state`, `agent.main.tool`, …) with the
 * event's own fields.
 */
export function publishAgentEvent(bus: EventBus, agent: string, event: { type: string }): void {
  if (bus.size === 0) return;
  const { type, ...fields } = event;
  bus.publish(`agent.${agent}.${type}`, fields);
}
