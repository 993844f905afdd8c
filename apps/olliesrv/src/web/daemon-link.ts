import type { OllieClient } from "@ollie/client";

/** Whether olliesrv answers, and through which connection. */
export type LinkState = { up: true; client: OllieClient; epoch: number } | { up: false; reason: string };

/** The longest wait between two dials while olliesrv does not answer. */
const MOST_BACKOFF_MS = 2000;

/**
 * `ollie web`'s one connection to olliesrv. When olliesrv goes (stopped, restarted, crashed) it dials again —
 * without starting one, which is its owner's to do — backing off to every 2 s, and tells whoever follows it;
 * each connection has its own epoch, since chat offsets and event numbers begin anew with a new olliesrv.
 */
export class DaemonLink {
  private current: LinkState = { up: false, reason: "olliesrv has not been dialled yet" };
  private readonly followers = new Set<(state: LinkState) => void>();
  private epoch = 0;
  private closed = false;
  private redial: NodeJS.Timeout | undefined;

  constructor(private readonly dial: () => Promise<OllieClient>) {}

  /** Takes the first connection (made by whoever started `ollie web`) and follows it from there. */
  adopt(client: OllieClient): void {
    this.connected(client);
  }

  get state(): LinkState {
    return this.current;
  }

  /** The connection, or an error saying olliesrv does not answer (a page shows it). */
  client(): OllieClient {
    if (!this.current.up) throw new DaemonDownError(this.current.reason);
    return this.current.client;
  }

  /** Calls `follower` with the state now and at each change; returns how to stop. */
  follow(follower: (state: LinkState) => void): () => void {
    this.followers.add(follower);
    follower(this.current);
    return () => this.followers.delete(follower);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.redial);
    if (this.current.up) this.current.client.close();
    this.followers.clear();
  }

  private connected(client: OllieClient): void {
    this.epoch++;
    this.set({ up: true, client, epoch: this.epoch });
    void client.closed.then(() => {
      if (this.closed) return;
      this.set({ up: false, reason: "olliesrv stopped; dialling it again" });
      this.dialAgain(100);
    });
  }

  private dialAgain(afterMs: number): void {
    this.redial = setTimeout(() => {
      this.dial().then(
        (client) => (this.closed ? client.close() : this.connected(client)),
        (error: Error) => {
          if (this.closed) return;
          this.set({ up: false, reason: `olliesrv does not answer: ${error.message}` });
          this.dialAgain(Math.min(afterMs * 2, MOST_BACKOFF_MS));
        },
      );
    }, afterMs);
  }

  private set(state: LinkState): void {
    this.current = state;
    for (const follower of this.followers) follower(state);
  }
}

/** olliesrv does not answer now: a page says so and waits for it. */
export class DaemonDownError extends Error {
  override readonly name = "DaemonDownError";
}
