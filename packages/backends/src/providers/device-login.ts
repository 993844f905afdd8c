import { setTimeout as sleep } from "node:timers/promises";
import { TransientError } from "../errors.js";
import { abortReason } from "../http/http-request.js";

/** A login that did not complete: the code expired, the user refused, or the service refused the app. */
export class LoginError extends Error {
  override readonly name = "LoginError";
  constructor(
    /** The OAuth error code (expired_token, access_denied, …), or "unexpected" for an answer not understood. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the user must do to finish a device-flow login (RFC 8628). */
export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  /** The same page with the code filled in, when the service gives one. */
  verificationUriComplete?: string;
  expiresInSeconds: number;
}

/** What one poll of the token endpoint said. */
export type PollAnswer<T> =
  | { kind: "granted"; value: T }
  | { kind: "pending" }
  /** `intervalMs` is the new interval the service asked for, when it named one. */
  | { kind: "slow_down"; intervalMs?: number }
  | { kind: "failed"; error: LoginError }
  /** The service is in trouble (5xx): worth asking again at the next interval. */
  | { kind: "transient"; error: TransientError };

export interface PollOptions<T> {
  /** The interval the service gave with the code. */
  intervalMs: number;
  /** When the code expires (epoch ms): no poll is made after it. */
  deadline: number;
  /** The command that starts the login again, named when the code expires. */
  command: string;
  /** What `slow_down` without a new interval adds (default 5 s, RFC 8628 §3.5); tests make it small. */
  slowDownIncrementMs?: number;
  signal?: AbortSignal | undefined;
  /** Asks the token endpoint once. A TransientError it throws (a network failure) counts as a transient answer. */
  poll: () => Promise<PollAnswer<T>>;
}

/**
 * Transient failures in a row that end the login. The user has already typed the code, so one bad answer
 * must not cost them the login; a service failing this long is down, and waiting out the code helps nobody.
 */
const MAX_TRANSIENT_FAILURES = 5;

/** The error of a code that ran out before the user entered it. */
export const codeExpired = (command: string) =>
  new LoginError("expired_token", `the code expired before it was entered: run \`${command}\` again`);

/**
 * Polls a device-flow token endpoint (RFC 8628 §3.4–3.5) until it grants the token: waits the interval
 * before every poll, slows down when told to, retries transient failures at the next interval, and ends
 * with `expired_token` once the deadline has passed. An aborted signal rejects at once with its reason.
 */
export async function pollDeviceToken<T>(options: PollOptions<T>): Promise<T> {
  const { signal, deadline } = options;
  let intervalMs = options.intervalMs;
  let failures = 0;
  for (;;) {
    await wait(intervalMs, signal);
    if (Date.now() >= deadline) throw codeExpired(options.command);
    const answer = await pollOnce(options.poll, signal);
    failures = answer.kind === "transient" ? failures + 1 : 0;
    switch (answer.kind) {
      case "granted":
        return answer.value;
      case "failed":
        throw answer.error;
      case "transient":
        if (failures >= MAX_TRANSIENT_FAILURES) throw answer.error;
        break;
      case "slow_down":
        intervalMs = answer.intervalMs ?? intervalMs + (options.slowDownIncrementMs ?? 5000);
        break;
    }
  }
}

/** One poll, with a network failure (which `send` throws as a TransientError) turned into an answer. */
async function pollOnce<T>(poll: () => Promise<PollAnswer<T>>, signal?: AbortSignal): Promise<PollAnswer<T>> {
  try {
    return await poll();
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    if (err instanceof TransientError) return { kind: "transient", error: err };
    throw err;
  }
}

/** Sleeps, rejecting with the signal's own reason (node's timer would wrap it in an AbortError). */
async function wait(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    throw err;
  }
}
