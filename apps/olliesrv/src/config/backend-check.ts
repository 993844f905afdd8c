import {
  AuthError,
  BackendError,
  type BackendPool,
  CredentialError,
  type Profile,
  UnreachableError,
} from "@ollie/backends";

/** How long a check waits for a backend's model list. */
export const CHECK_TIMEOUT_MS = 5000;

/** Whether a backend profile answers: its model list, or why there is none. */
export interface BackendCheck {
  profile: Profile;
  isDefault: boolean;
  /** The models it lists, when it answered. */
  models?: string[];
  /** Why it did not answer, when it did not. */
  problem?: string;
}

/**
 * Asks the backend of profile `name` for its models, for at most `timeoutMs`. Never throws: a failure is the
 * check's `problem`, said for a person (nothing answers at the address, the key was refused, …).
 */
export async function checkBackend(
  pool: BackendPool,
  name: string,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<BackendCheck> {
  const profile = pool.profile(name);
  const base = { profile, isDefault: pool.conf.defaultProfile === name };
  const signal = AbortSignal.timeout(timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // A key_cmd that hangs is not stopped by the signal: the check gives up on it all the same.
    timer = setTimeout(() => reject(signal.reason), timeoutMs + 50);
  });
  try {
    const listed = await Promise.race([pool.fresh(name).then((b) => b.models(signal)), late]);
    return { ...base, models: listed.map((m) => m.id) };
  } catch (error) {
    return { ...base, problem: problemOf(error, timeoutMs) };
  } finally {
    clearTimeout(timer);
  }
}

/** Checks every profile at once. */
export function checkBackends(pool: BackendPool, timeoutMs = CHECK_TIMEOUT_MS): Promise<BackendCheck[]> {
  return Promise.all(pool.names().map((name) => checkBackend(pool, name, timeoutMs)));
}

/** A check's verdict in a few words: `ok: 3 models (a, b, c)`, or `no answer: …`, or `error: …`. */
export function verdict(check: BackendCheck): string {
  if (check.problem !== undefined) return check.problem;
  const models = check.models ?? [];
  const some = `${models.slice(0, 5).join(", ")}${models.length > 5 ? ", …" : ""}`;
  const count = `${models.length} model${models.length === 1 ? "" : "s"}`;
  const missing =
    models.length > 0 && !models.includes(check.profile.model) ? `, but not ${check.profile.model}` : "";
  return `ok: ${count}${missing}${models.length > 0 ? ` (${some})` : ""}`;
}

/** A check as a line of `backends.check`: `*` for the default, name, type, model, verdict (tab-separated). */
export function checkLine(check: BackendCheck): string {
  const p = check.profile;
  return `${check.isDefault ? "*" : " "} ${p.name}\t${p.type}\t${p.model}\t${verdict(check)}\n`;
}

/** What went wrong, without the profile's name the errors start with (the line names it already). */
function problemOf(error: unknown, timeoutMs: number): string {
  if ((error as Error)?.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof BackendError) {
    const what = `${error.status === undefined ? "" : `${error.status}: `}${error.providerMessage}`;
    if (error instanceof UnreachableError) return `no answer: ${what}`;
    if (error instanceof AuthError) return `key refused: ${what}`;
    return `error: ${what}`;
  }
  if (error instanceof CredentialError) return `no key: ${error.message.replace(/^\[[^\]]*\]: /, "")}`;
  return `error: ${(error as Error)?.message ?? String(error)}`;
}
