import type { BackendPool, ModelInfo } from "@ollie/backends";
import type { Logger } from "@ollie/log";
import { oneLine } from "../one-line.js";
import { CHECK_TIMEOUT_MS, DETAIL_MAX, listModels } from "./backend-check.js";

/** When a failed model list is asked for again: after 2 s, then twice as long each time, 5 minutes at most. */
export const MODEL_RETRY = { firstMs: 2000, maxMs: 5 * 60_000 };

/** One profile's model list, as last fetched. */
interface Entry {
  /** The fetch under way (the first, a retry or a refresh); readers wait for it. */
  pending: Promise<void> | undefined;
  models: ModelInfo[] | undefined;
  /** Why the last fetch failed, in words (undefined after a success). */
  error: string | undefined;
  /** The last fetch's error itself: what a reader's ModelListError wraps, so its code reaches the client. */
  failure: unknown;
  /** Failed fetches in a row. */
  failures: number;
  /** When the next try is due (Date.now()), after a failure. */
  retryAt: number | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A model list that could not be had: why, and when olliesrv asks again. Its `cause` is the fetch's own
 * error (a backend that refused the connection, a list that did not come in time), which says what it is.
 */
export class ModelListError extends Error {
  override readonly name = "ModelListError";
}

/**
 * Every backend profile's model list, fetched once when olliesrv starts (each in the background, its key_cmd
 * run once) and again when backends.conf changes, so that reading `models` asks no backend and runs no
 * key_cmd. A fetch that fails is tried again after MODEL_RETRY (doubling), and logged once per new reason (a
 * warning for the default profile, news for the others); a reader meanwhile gets why, and when the next
 * try is. A reader that comes while a fetch runs waits for it.
 */
export class ModelCache {
  private entries = new Map<string, Entry>();
  /** The profiles the entries were fetched for: a changed backends.conf makes a new set. */
  private pool: BackendPool | undefined;
  private closed = false;

  constructor(
    private readonly backends: () => BackendPool,
    private readonly log: Logger,
    private readonly options: { timeoutMs?: number; retry?: typeof MODEL_RETRY } = {},
  ) {}

  /** Fetches every profile's list now (the start, or a changed backends.conf: what was fetched is dropped). */
  refresh(): void {
    if (this.closed) return;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries = new Map();
    this.pool = this.backends();
    for (const name of this.pool.names()) this.fetch(name);
  }

  /** Asks again at once for the lists that failed (an explicit `reload`), instead of waiting for the retry. */
  retryFailed(): void {
    if (this.closed) return;
    if (this.pool !== this.backends()) {
      this.refresh();
      return;
    }
    for (const [name, entry] of this.entries)
      if (entry.error !== undefined && !entry.pending) {
        clearTimeout(entry.timer);
        this.fetch(name);
      }
  }

  /**
   * The models of profile `name` (the default when undefined), from the cache: waits for a fetch under way,
   * and rejects with a ModelListError saying why there is no list and when the next try is.
   */
  async models(name?: string): Promise<ModelInfo[]> {
    if (this.pool !== this.backends()) this.refresh();
    const profile = this.backends().profile(name).name;
    let entry = this.entries.get(profile);
    if (!entry) {
      this.fetch(profile);
      entry = this.entries.get(profile)!;
    }
    await entry.pending;
    if (entry.models) return entry.models;
    const retry = entry.retryAt === undefined ? "" : `; olliesrv asks again in ${inSeconds(entry.retryAt)}`;
    throw new ModelListError(`backend '${profile}' has not listed its models: ${entry.error}${retry}`, {
      cause: entry.failure,
    });
  }

  /** The list of profile `name` if it was fetched, without waiting or asking (undefined otherwise). */
  cached(name?: string): ModelInfo[] | undefined {
    if (this.pool !== this.backends()) return undefined;
    try {
      return this.entries.get(this.backends().profile(name).name)?.models;
    } catch {
      return undefined;
    }
  }

  /** Stops every retry; nothing is fetched any more. */
  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
  }

  private fetch(name: string): void {
    const pool = this.backends();
    const entries = this.entries;
    const entry: Entry = entries.get(name) ?? {
      pending: undefined,
      models: undefined,
      error: undefined,
      failure: undefined,
      failures: 0,
      retryAt: undefined,
      timer: undefined,
    };
    entries.set(name, entry);
    entry.timer = undefined;
    entry.retryAt = undefined;
    const current = () => !this.closed && this.entries === entries;
    const fetched = listModels(pool, name, this.options.timeoutMs ?? CHECK_TIMEOUT_MS).then(
      (models) => {
        if (!current()) return;
        if (entry.failures > 0) this.log.info(`backend '${name}' lists its models now (${models.length})`);
        entry.models = models;
        entry.error = undefined;
        entry.failure = undefined;
        entry.failures = 0;
      },
      (error: unknown) => {
        if (!current()) return;
        const reason = oneLine((error as Error)?.message ?? String(error), DETAIL_MAX);
        const retry = this.options.retry ?? MODEL_RETRY;
        const delay = Math.min(retry.firstMs * 2 ** entry.failures, retry.maxMs);
        // A problem for every agent when it is the default profile; for one that may be unused, news.
        const say = pool.conf.defaultProfile === name ? this.log.warn : this.log.info;
        if (reason !== entry.error)
          say(
            `backend '${name}' did not list its models: ${reason}; olliesrv asks again in ${delay / 1000} s, and after that less often`,
          );
        entry.models = undefined;
        entry.error = reason;
        entry.failure = error;
        entry.failures++;
        entry.retryAt = Date.now() + delay;
        entry.timer = setTimeout(() => {
          if (current()) this.fetch(name);
        }, delay);
        entry.timer.unref();
      },
    );
    const pending: Promise<void> = fetched.finally(() => {
      if (entry.pending === pending) entry.pending = undefined;
    });
    entry.pending = pending;
  }
}

/** How long until `at`, as people read it: `4 s`, `2 min`. */
function inSeconds(at: number): string {
  const s = Math.max(0, Math.ceil((at - Date.now()) / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
