import { AuthError, RateLimitError, TransientError, UnreachableError } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { attemptsFor, DEFAULT_RETRY_POLICY, retryDelayMs } from "./retry-policy.js";

const policy = { ...DEFAULT_RETRY_POLICY, jitter: 0 };
const refused = new UnreachableError({
  provider: "local",
  providerMessage: "request to http://localhost:11434/api/chat failed: connect ECONNREFUSED 127.0.0.1:11434",
  code: "ECONNREFUSED",
});
const notFound = new UnreachableError({
  provider: "remote",
  providerMessage: "getaddrinfo ENOTFOUND x",
  code: "ENOTFOUND",
});
const overloaded = new TransientError({ provider: "openai", status: 503, providerMessage: "overloaded" });
const dropped = new TransientError({ provider: "openai", providerMessage: "socket hang up" });

describe("which failures are retried, and how soon", () => {
  it("tries a backend that is not there once more after 300 ms, then gives up", () => {
    for (const error of [refused, notFound]) {
      expect(attemptsFor(policy, error)).toBe(2);
      expect(retryDelayMs(policy, error, 1)).toBe(300);
      expect(retryDelayMs(policy, error, 2)).toBeUndefined();
    }
  });

  it("backs a failing server or a dropped connection off for the policy's whole attempts", () => {
    for (const error of [overloaded, dropped]) {
      expect(attemptsFor(policy, error)).toBe(6);
      expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, error, attempt))).toEqual([
        1000, 2000, 4000, 8000, 16_000,
      ]);
      expect(retryDelayMs(policy, error, 6)).toBeUndefined();
    }
  });

  it("waits out a rate limit's Retry-After, and refuses one longer than the policy allows", () => {
    const limited = new RateLimitError({
      provider: "p",
      status: 429,
      providerMessage: "slow down",
      retryAfterMs: 5000,
    });
    const tooLong = new RateLimitError({
      provider: "p",
      status: 429,
      providerMessage: "tomorrow",
      retryAfterMs: 86_400_000,
    });
    expect(retryDelayMs(policy, limited, 1)).toBe(5000);
    expect(retryDelayMs(policy, tooLong, 1)).toBeUndefined();
  });

  it("never retries what a retry would not fix", () => {
    expect(
      retryDelayMs(policy, new AuthError({ provider: "p", status: 401, providerMessage: "bad key" }), 1),
    ).toBeUndefined();
    expect(retryDelayMs(policy, new Error("a bug"), 1)).toBeUndefined();
  });

  it("keeps an unreachable backend's limit within the policy's own", () => {
    const strict = { ...policy, maxAttempts: 1 };
    expect(attemptsFor(strict, refused)).toBe(1);
    expect(retryDelayMs(strict, refused, 1)).toBeUndefined();
    const patient = { ...policy, unreachableAttempts: 4, unreachableDelayMs: 50 };
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(patient, refused, attempt))).toEqual([
      50,
      50,
      50,
      undefined,
    ]);
  });
});
