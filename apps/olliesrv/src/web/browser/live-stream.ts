import type { PageOp } from "./page-ops.js";

/**
 * The page's stream, and when to hold it. A browser gives a host six HTTP/1.1 connections in all, and each
 * live stream holds one: with every tab's stream open, the seventh tab would not even load. So a hidden tab
 * lets its stream go, and takes it up again, where it stopped, when shown — all but one: the tab holding the
 * `ollie-web-live` lock (the first opened; the next when it closes) keeps its stream hidden or not, so
 * approvals still notify.
 */
export class LiveStream {
  private source: EventSource | undefined;
  /** The last message's id: a stream taken up again goes on after it. */
  private lastId = "";
  private keptHidden = false;

  constructor(
    private readonly url: string,
    private readonly apply: (ops: PageOp[]) => void,
    private readonly say: (text: string) => void,
  ) {}

  start(): void {
    this.open();
    // Where the browser has no locks (not a secure context), every tab keeps its stream.
    if (!navigator.locks) this.keptHidden = true;
    else
      void navigator.locks.request(
        "ollie-web-live",
        () =>
          new Promise<void>(() => {
            // Held until the tab goes.
            this.keptHidden = true;
            if (!this.source) this.open();
          }),
      );
    document.addEventListener("visibilitychange", () => {
      if (document.hidden && !this.keptHidden) this.pause();
      else if (!document.hidden && !this.source) this.open();
    });
  }

  private open(): void {
    const url = this.lastId === "" ? this.url : `${this.url}&resume=${encodeURIComponent(this.lastId)}`;
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener("open", () => this.say("live"));
    source.addEventListener("error", () => {
      // EventSource comes back by itself, sending the last event's id: the server gives what was missed. One
      // refused outright (olliesrv down, the session gone, ollie web restarted with another token) does not:
      // the page is loaded again, and says why.
      this.say("reconnecting to ollie web…");
      if (source.readyState === EventSource.CLOSED) setTimeout(() => window.location.reload(), 2000);
    });
    const take = (event: Event) => {
      const message = event as MessageEvent<string>;
      if (message.lastEventId) this.lastId = message.lastEventId;
      if (message.type === "patch") this.apply(JSON.parse(message.data) as PageOp[]);
    };
    source.addEventListener("hello", take);
    source.addEventListener("patch", take);
  }

  private pause(): void {
    this.source?.close();
    this.source = undefined;
    this.say("paused while hidden");
  }
}
