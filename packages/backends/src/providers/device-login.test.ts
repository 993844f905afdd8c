import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { TransientError, UnreachableError } from "../errors.js";
import { LoginError, type PollAnswer, pollDeviceToken } from "./device-login.js";

/** Timers may fire a millisecond early. */
const SLACK_MS = 2;
const COMMAND = "ollie login test";
const trouble = (status?: number) =>
  new TransientError({ provider: "test", providerMessage: "bad gateway", ...(status && { status }) });

/**
 * Polls with `answers` given in turn (a function is called, and may throw), recording when each poll was
 * made relative to the start. The last answer repeats.
 */
function scripted(answers: Array<PollAnswer<string> | (() => PollAnswer<string>)>) {
  const start = performance.now();
  const at: number[] = [];
  const poll = async () => {
    at.push(performance.now() - start);
    const next = answers[Math.min(at.length, answers.length) - 1]!;
    return typeof next === "function" ? next() : next;
  };
  return { at, poll, gaps: () => at.map((t, i) => t - (at[i - 1] ?? 0)) };
}

const pending = { kind: "pending" } as const;
const granted = { kind: "granted", value: "token" } as const;
const run = (
  script: ReturnType<typeof scripted>,
  options: { intervalMs?: number; deadlineMs?: number } = {},
) =>
  pollDeviceToken({
    intervalMs: options.intervalMs ?? 10,
    deadline: Date.now() + (options.deadlineMs ?? 10_000),
    command: COMMAND,
    slowDownIncrementMs: 20,
    poll: script.poll,
  });

describe("pollDeviceToken", () => {
  it("waits the interval before every poll, the first included, until the token is granted", async () => {
    const script = scripted([pending, pending, granted]);
    await expect(run(script, { intervalMs: 20 })).resolves.toBe("token");
    expect(script.at).toHaveLength(3);
    for (const gap of script.gaps()) expect(gap).toBeGreaterThanOrEqual(20 - SLACK_MS);
  });

  it("slow_down: takes the service's new interval, else adds the increment", async () => {
    const script = scripted([{ kind: "slow_down", intervalMs: 40 }, { kind: "slow_down" }, pending, granted]);
    await expect(run(script)).resolves.toBe("token");
    const [, afterNew, afterIncrement, later] = script.gaps();
    expect(afterNew).toBeGreaterThanOrEqual(40 - SLACK_MS);
    expect(afterIncrement).toBeGreaterThanOrEqual(60 - SLACK_MS);
    expect(later).toBeGreaterThanOrEqual(60 - SLACK_MS);
  });

  it("a service that never stops saying slow_down ends at the deadline with expired_token, polling no later", async () => {
    const script = scripted([{ kind: "slow_down", intervalMs: 10 }]);
    const started = performance.now();
    const err = await run(script, { deadlineMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect(err).toMatchObject({ code: "expired_token", message: expect.stringContaining(COMMAND) });
    expect(script.at.length).toBeGreaterThan(1);
    expect(Math.max(...script.at)).toBeLessThan(100 + SLACK_MS);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("retries a 5xx or a network failure at the next interval", async () => {
    const script = scripted([
      { kind: "transient", error: trouble(502) },
      () => {
        throw trouble();
      },
      () => {
        throw new UnreachableError({ provider: "test", providerMessage: "refused", code: "ECONNREFUSED" });
      },
      granted,
    ]);
    await expect(run(script)).resolves.toBe("token");
    expect(script.at).toHaveLength(4);
    for (const gap of script.gaps()) expect(gap).toBeGreaterThanOrEqual(10 - SLACK_MS);
  });

  it("gives up with the last error after five transient failures in a row, counting only those in a row", async () => {
    const last = trouble(503);
    const failing = scripted([
      ...Array.from({ length: 4 }, () => ({ kind: "transient", error: trouble(502) }) as const),
      { kind: "transient", error: last },
    ]);
    await expect(run(failing)).rejects.toBe(last);
    expect(failing.at).toHaveLength(5);

    const fourAndFour = Array.from(
      { length: 4 },
      () => ({ kind: "transient", error: trouble(502) }) as const,
    );
    const recovering = scripted([...fourAndFour, pending, ...fourAndFour, granted]);
    await expect(run(recovering)).resolves.toBe("token");
  });

  it("a refusal or an error it does not know ends the login at once", async () => {
    const denied = new LoginError("access_denied", "refused");
    const refused = scripted([pending, { kind: "failed", error: denied }, granted]);
    await expect(run(refused)).rejects.toBe(denied);
    expect(refused.at).toHaveLength(2);

    const bug = new TypeError("not a function");
    const broken = scripted([
      () => {
        throw bug;
      },
      granted,
    ]);
    await expect(run(broken)).rejects.toBe(bug);
    expect(broken.at).toHaveLength(1);
  });

  it("rejects at once with the signal's reason when aborted, waiting or polling", async () => {
    const reason = new Error("the user gave up");
    const waiting = new AbortController();
    const script = scripted([pending]);
    const started = performance.now();
    const polling = pollDeviceToken({
      intervalMs: 60_000,
      deadline: Date.now() + 600_000,
      command: COMMAND,
      signal: waiting.signal,
      poll: script.poll,
    });
    waiting.abort(reason);
    await expect(polling).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(script.at).toHaveLength(0);

    // A poll cut short fails however it fails (here as a network failure): the reason is what comes out.
    const midPoll = new AbortController();
    const cut = pollDeviceToken({
      intervalMs: 1,
      deadline: Date.now() + 600_000,
      command: COMMAND,
      signal: midPoll.signal,
      poll: () =>
        new Promise<PollAnswer<string>>((_, reject) => {
          midPoll.signal.addEventListener("abort", () => reject(trouble()));
          midPoll.abort(reason);
        }),
    });
    await expect(cut).rejects.toBe(reason);
  });
});
