import { type ErrorSource, TransientError } from "../errors.js";
import { abortReason } from "./http-request.js";

/**
 * Work several requests wait for at once — a token exchange, a login's renewal, a model list. It runs on
 * its own, bounded by `timeoutMs`, not by any one caller's signal: one caller giving up must not fail the
 * others, nor cut a renewal off after the service has already replaced the refresh token. Each caller
 * stops waiting when its own signal aborts.
 */
export class SharedWork<T> {
  private running: Promise<T> | undefined;

  constructor(
    private readonly source: ErrorSource,
    /** What the work is, for the timeout's message ("the Copilot token exchange"). */
    private readonly what: string,
    private readonly work: (signal: AbortSignal) => Promise<T>,
    private readonly timeoutMs = 60_000,
  ) {}

  run(signal?: AbortSignal): Promise<T> {
    this.running ??= this.start().finally(() => {
      this.running = undefined;
    });
    return untilAborted(this.running, signal);
  }

  private async start(): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.work(timeout);
    } catch (err) {
      if (!timeout.aborted) throw err;
      throw new TransientError({
        ...this.source,
        providerMessage: `${this.what} did not finish within ${this.timeoutMs / 1000} s`,
      });
    }
  }
}

/** `promise`, or its caller's abort when that comes first (the promise runs on). */
export function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
