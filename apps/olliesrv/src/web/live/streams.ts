import type { OllieClient, SessionEntry } from "@ollie/client";
import type { DaemonLink } from "../daemon-link.js";
import { followAgent } from "./agent-feed.js";
import { followApprovals } from "./approvals-feed.js";
import { BrowserStream } from "./browser-stream.js";
import type { PageOp } from "./page-ops.js";
import type { SessionFilter } from "./session-view.js";
import { followSessions } from "./sessions-feed.js";

/** What a page follows. */
export type StreamView =
  | { page: "sessions"; filter: SessionFilter }
  | { page: "approvals" }
  | {
      page: "agent";
      session: SessionEntry;
      agent: string;
      /** Where the page's transcript ended, on which connection to olliesrv it was read. */
      chat: { from: number; epoch: number } | undefined;
    };

/** How long a stream's feeds go on without its browser, for it to come back to. */
const KEPT_AWAY_MS = 120_000;
/**
 * The most streams at once, and the most kept for browsers away: each holds blocking reads on the one
 * connection to olliesrv (a sessions page, one per session), which a reload storm must not use up.
 */
const MOST_STREAMS = 64;
const MOST_AWAY = 16;

/** A stream and what feeds it. */
class FedStream {
  readonly stream = new BrowserStream();
  private feeds: AbortController | undefined;
  private readonly unfollow: () => void;
  private away: NodeJS.Timeout | undefined;
  /** When its browser left; undefined while one is on it. */
  awaySince: number | undefined;
  /** The markup last sent for each element: the same again is not sent (it would cost the page its focus). */
  private readonly shown = new Map<string, string>();

  constructor(
    private readonly view: StreamView,
    link: DaemonLink,
    private readonly formToken: string,
    private readonly ended: (stream: FedStream) => void,
  ) {
    this.stream.hello(true);
    this.unfollow = link.follow((state) => {
      this.feeds?.abort();
      this.feeds = undefined;
      if (!state.up) {
        this.send([{ op: "link", up: false, text: state.reason }]);
        return;
      }
      this.send([{ op: "link", up: true, text: "live" }]);
      this.start(state.client, state.epoch);
    });
  }

  /** The browser went: its feeds go on for a while, for it to come back. */
  left(): void {
    clearTimeout(this.away);
    this.awaySince = Date.now();
    this.away = setTimeout(() => this.close(), KEPT_AWAY_MS);
  }

  /** The browser is (back) on the stream. */
  joined(): void {
    clearTimeout(this.away);
    this.awaySince = undefined;
  }

  close(): void {
    clearTimeout(this.away);
    this.unfollow();
    this.feeds?.abort();
    this.stream.close();
    this.ended(this);
  }

  /** Sends ops to the page, but none that would put in an element the markup it already has. */
  private send(ops: PageOp[]): void {
    this.stream.send(
      ops.filter((op) => {
        if (op.op === "html" || op.op === "upsert") {
          if (this.shown.get(op.id) === op.html) return false;
          this.shown.set(op.id, op.html);
        } else if (op.op === "remove") this.shown.delete(op.id);
        else if (op.op === "only")
          for (const id of this.shown.keys())
            if (id.startsWith("s-") && !op.ids.includes(id)) this.shown.delete(id);
        return true;
      }),
    );
  }

  private start(client: OllieClient, epoch: number): void {
    const feeds = new AbortController();
    this.feeds = feeds;
    const send = (ops: PageOp[]) => {
      if (!feeds.signal.aborted) this.send(ops);
    };
    const run = (feed: Promise<void>) =>
      feed.catch((error: Error) => {
        if (feeds.signal.aborted) return;
        send([{ op: "link", up: true, text: `not following: ${error.message}` }]);
      });
    const { view, formToken } = this;
    void run(followApprovals(client, feeds.signal, send, { formToken, showList: view.page === "approvals" }));
    if (view.page === "sessions")
      void run(followSessions(client, feeds.signal, send, { formToken, filter: view.filter }));
    if (view.page === "agent") {
      // The page's transcript holds the chat to `from` only on the connection it was read on: after a
      // restart of olliesrv the chat is rebuilt, and the page is sent its transcript anew.
      const from = view.chat?.epoch === epoch ? view.chat.from : undefined;
      view.chat = undefined;
      void run(
        followAgent(client, feeds.signal, send, {
          session: view.session,
          agent: view.agent,
          formToken,
          chat: { from },
        }),
      );
    }
  }
}

/** Every page's live stream, by id, for browsers to come back to. */
export class Streams {
  private readonly streams = new Map<string, FedStream>();

  constructor(
    private readonly link: DaemonLink,
    private readonly formToken: string,
  ) {}

  /**
   * A new stream for a page; undefined when MOST_STREAMS have browsers on them (the oldest kept for a browser
   * away makes room first).
   */
  open(view: StreamView): FedStream | undefined {
    if (this.streams.size >= MOST_STREAMS) this.oldestAway()?.close();
    if (this.streams.size >= MOST_STREAMS) return undefined;
    const fed = new FedStream(view, this.link, this.formToken, (s) => this.streams.delete(s.stream.id));
    this.streams.set(fed.stream.id, fed);
    return fed;
  }

  /** A browser left `fed`: it is kept for it to come back, within MOST_AWAY. */
  left(fed: FedStream): void {
    fed.left();
    const away = [...this.streams.values()].filter((s) => s.awaySince !== undefined);
    if (away.length > MOST_AWAY) this.oldestAway()?.close();
  }

  private oldestAway(): FedStream | undefined {
    let oldest: FedStream | undefined;
    for (const s of this.streams.values())
      if (s.awaySince !== undefined && (oldest?.awaySince === undefined || s.awaySince < oldest.awaySince))
        oldest = s;
    return oldest;
  }

  find(id: string): FedStream | undefined {
    return this.streams.get(id);
  }

  get size(): number {
    return this.streams.size;
  }

  close(): void {
    for (const fed of [...this.streams.values()]) fed.close();
  }
}

export type { FedStream };
