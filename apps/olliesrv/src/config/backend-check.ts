import {
  AuthError,
  BackendError,
  type BackendPool,
  CredentialError,
  type ModelInfo,
  type Profile,
  UnreachableError,
} from "@ollie/backends";
import { oneLine } from "../one-line.js";

/** How long a check waits for a backend's model list (its key_cmd included). */
export const CHECK_TIMEOUT_MS = 5000;

/** How long `backends.check` answers with the last check of the same profiles instead of asking again. */
export const CHECK_CACHE_MS = 3000;

/** The longest a check's words get: a backend's error can be a whole web page. */
export const DETAIL_MAX = 200;

/**
 * How a check came out, for programs: `ok`; `no-model` (it answers, but its list lacks the profile's model);
 * `no-answer` (nothing at the address, or nothing within the time); `no-key` (the credential could not be
 * had); `key-refused`; `error`.
 */
export const CHECK_STATUSES = ["ok", "no-model", "no-answer", "no-key", "key-refused", "error"] as const;

export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** Whether a backend with this status answered (its model may still be missing). */
export const answered = (status: CheckStatus) => status === "ok" || status === "no-model";

/** Whether a backend profile answers, and what it said: its model list, or why there is none. */
export interface BackendCheck {
  profile: Profile;
  isDefault: boolean;
  status: CheckStatus;
  /**
   * The rest, on one line and short, for a person: `3 models (a, b, c)`, `3 models, but not X (a, b, c)`, or
   * why it did not answer (`key_env names X, which is not set`).
   */
  detail: string;
}

/** A model list that did not come in time: `waitingFor` says whether the key (key_cmd) or the list was late. */
export class ListTimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(
    readonly waitingFor: "key" | "models",
    readonly timeoutMs: number,
  ) {
    super(
      waitingFor === "key"
        ? `key_cmd did not finish within ${timeoutMs / 1000} s`
        : `nothing within ${timeoutMs / 1000} s`,
    );
  }
}

/**
 * The models of profile `name`'s backend, asked for at most `timeoutMs` — the profile's key_cmd included,
 * which is stopped then. Rejects with why not: a ListTimeoutError when the time ran out, whatever it was
 * waiting for; else the backend's or the credential's error.
 */
export async function listModels(pool: BackendPool, name: string, timeoutMs: number): Promise<ModelInfo[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  let waitingFor: "key" | "models" = "key";
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // In case something does not heed the signal: the check gives up on it all the same.
    timer = setTimeout(() => reject(signal.reason), timeoutMs + 50);
  });
  try {
    const listing = pool.fresh(name, { signal }).then((backend) => {
      waitingFor = "models";
      return backend.models(signal);
    });
    return await Promise.race([listing, late]);
  } catch (error) {
    throw signal.aborted ? new ListTimeoutError(waitingFor, timeoutMs) : error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks the backend of profile `name` for its models, for at most `timeoutMs`. Never throws: a failure is the
 * check's status and detail, said for a person (nothing answers at the address, the key was refused, …).
 */
export async function checkBackend(
  pool: BackendPool,
  name: string,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<BackendCheck> {
  const profile = pool.profile(name);
  const base = { profile, isDefault: pool.conf.defaultProfile === name };
  try {
    const models = (await listModels(pool, name, timeoutMs)).map((m) => m.id);
    const some = `${models.slice(0, 5).join(", ")}${models.length > 5 ? ", …" : ""}`;
    const count = `${models.length} model${models.length === 1 ? "" : "s"}`;
    const missing = models.length > 0 && !models.includes(profile.model);
    const detail = `${count}${missing ? `, but not ${profile.model}` : ""}${models.length > 0 ? ` (${some})` : ""}`;
    return { ...base, status: missing ? "no-model" : "ok", detail: oneLine(detail, DETAIL_MAX) };
  } catch (error) {
    const [status, detail] = problemOf(error);
    return { ...base, status, detail: oneLine(detail, DETAIL_MAX) };
  }
}

/** Checks every profile at once. */
export function checkBackends(pool: BackendPool, timeoutMs = CHECK_TIMEOUT_MS): Promise<BackendCheck[]> {
  return Promise.all(pool.names().map((name) => checkBackend(pool, name, timeoutMs)));
}

interface Checked {
  pool: BackendPool;
  result: Promise<BackendCheck[]>;
  /** When it ended (performance.now()); undefined while it runs. */
  endedAt?: number;
}

/**
 * The checks behind `backends.check`, which each run every key_cmd and ask every backend: one at a time,
 * shared by whoever asks while it runs, and its result given again for `cacheMs` after it ends — unless
 * the profiles changed (another pool) since.
 */
export class BackendChecks {
  private last: Checked | undefined;

  constructor(
    private readonly run: (pool: BackendPool) => Promise<BackendCheck[]> = (pool) => checkBackends(pool),
    private readonly cacheMs = CHECK_CACHE_MS,
  ) {}

  check(pool: BackendPool): Promise<BackendCheck[]> {
    const last = this.last;
    if (
      last?.pool === pool &&
      (last.endedAt === undefined || performance.now() - last.endedAt < this.cacheMs)
    )
      return last.result;
    // One in flight at a time: a check of new profiles waits for the one of the old.
    const before = last?.result.catch(() => undefined) ?? Promise.resolve(undefined);
    const entry: Checked = {
      pool,
      result: before.then(() => this.run(pool)),
    };
    void entry.result.then(
      () => {
        entry.endedAt = performance.now();
      },
      () => {
        entry.endedAt = Number.NEGATIVE_INFINITY;
      },
    );
    this.last = entry;
    return entry.result;
  }
}

/** A check's verdict for a person: `ok: 3 models (a, b, c)`, `no answer: …`, `no key: …`, … */
export function verdict(status: CheckStatus, detail: string): string {
  const word: Record<CheckStatus, string> = {
    ok: "ok",
    "no-model": "ok",
    "no-answer": "no answer",
    "no-key": "no key",
    "key-refused": "key refused",
    error: "error",
  };
  return `${word[status]}: ${detail}`;
}

/**
 * A check as a line of `backends.check` (tab-separated): its status, `*` for the default (else a space), a
 * space and the name, then type, model and detail.
 */
export function checkLine(check: BackendCheck): string {
  const p = check.profile;
  return `${check.status}\t${check.isDefault ? "*" : " "} ${p.name}\t${p.type}\t${p.model}\t${check.detail}\n`;
}

/** What went wrong, without the profile's name the errors start with (the line names it already). */
function problemOf(error: unknown): [CheckStatus, string] {
  if (error instanceof ListTimeoutError)
    return [error.waitingFor === "key" ? "no-key" : "no-answer", error.message];
  if (error instanceof BackendError) {
    const what = `${error.status === undefined ? "" : `${error.status}: `}${error.providerMessage}`;
    if (error instanceof UnreachableError) return ["no-answer", what];
    if (error instanceof AuthError) return ["key-refused", what];
    return ["error", what];
  }
  if (error instanceof CredentialError) return ["no-key", error.message.replace(/^\[[^\]]*\]: /, "")];
  return ["error", (error as Error)?.message ?? String(error)];
}
