import { Waiters, type Watchable } from "@ollie/virtfs";
import type { Session } from "./session.js";

/**
 * What `session/idx` shows — one line per session: id, name, the main agent's state, cwd — and what
 * `session/idxwait` waits on. It is told of everything that may change it (a session made, killed, renamed or
 * moved, an agent's state) and renders the text again only when asked, or at once when a reader waits: so
 * readers wake only when the text really changed, and a daemon nobody watches renders nothing.
 */
export class SessionIndex implements Watchable<string> {
  #text = "";
  #stale = true;
  #changes = 0;
  readonly #waiters = new Waiters();

  constructor(private readonly sessions: () => Iterable<Session>) {}

  get(): string {
    if (this.#stale) {
      this.#stale = false;
      const text = render(this.sessions());
      if (text !== this.#text) {
        this.#text = text;
        this.#changes++;
      }
    }
    return this.#text;
  }

  /** How many times the text changed, as far as it was looked at (the files' qid version). */
  get version(): number {
    this.get();
    return this.#changes;
  }

  /** Readers now waiting for a change. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Something the index shows may have changed; readers waiting wake if it did. */
  touched(): void {
    this.#stale = true;
    if (this.#waiters.size === 0) return;
    const before = this.#changes;
    this.get();
    if (this.#changes !== before) this.#waiters.wake();
  }

  /** Resolves at the next change of the text, or rejects when `signal` aborts (and then leaves nothing behind). */
  changed(signal?: AbortSignal): Promise<void> {
    return this.#waiters.wait(signal);
  }
}

function render(sessions: Iterable<Session>): string {
  let text = "";
  for (const s of sessions)
    text += `${s.id}\t${s.name}\t${s.agents.get("main")?.shown.state.get() ?? "idle"}\t${s.cwd}\n`;
  return text;
}
