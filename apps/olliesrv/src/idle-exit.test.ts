import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseDuration, sayDuration } from "./duration.js";
import { IdleExit } from "./idle-exit.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** An IdleExit of `afterMs` over a daemon that is busy while `busy` is set; `stopped` counts its stops. */
function watched(afterMs: number) {
  const w = { busy: false, stopped: 0, idle: undefined as unknown as IdleExit };
  w.idle = new IdleExit({
    afterMs,
    busy: () => w.busy,
    stop: () => {
      w.stopped++;
    },
  });
  return w;
}

describe("stopping an idle daemon", () => {
  it("stops once nothing has held it for the whole wait, and once only", () => {
    const w = watched(60_000);
    w.idle.start();
    vi.advanceTimersByTime(59_999);
    expect(w.stopped).toBe(0);
    vi.advanceTimersByTime(1);
    expect(w.stopped).toBe(1);
    vi.advanceTimersByTime(600_000);
    expect(w.stopped).toBe(1);
  });

  it("waits for nothing while something holds it, and the whole wait from when that ends", () => {
    const w = watched(60_000);
    w.idle.start();
    w.busy = true;
    w.idle.changed();
    vi.advanceTimersByTime(600_000);
    expect(w.stopped).toBe(0);
    w.busy = false;
    w.idle.changed();
    vi.advanceTimersByTime(59_999);
    expect(w.stopped).toBe(0);
    vi.advanceTimersByTime(1);
    expect(w.stopped).toBe(1);
  });

  it("counts the wait again from a client's coming or going, however short its visit", () => {
    const w = watched(60_000);
    w.idle.start();
    vi.advanceTimersByTime(50_000);
    w.idle.changed();
    // Past the wait since the start, not since the client.
    vi.advanceTimersByTime(50_000);
    expect(w.stopped).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(w.stopped).toBe(1);
  });

  it("looks before it stops: a hold nobody told of keeps the daemon", () => {
    const w = watched(1_000);
    w.idle.start();
    w.busy = true;
    vi.advanceTimersByTime(10_000);
    expect(w.stopped).toBe(0);
  });

  it("stops nothing before it starts or once closed", () => {
    const w = watched(1_000);
    w.idle.changed();
    vi.advanceTimersByTime(10_000);
    expect(w.stopped).toBe(0);
    w.idle.start();
    w.idle.close();
    w.idle.changed();
    vi.advanceTimersByTime(10_000);
    expect(w.stopped).toBe(0);
  });
});

describe("durations", () => {
  it("take a unit (ms, s, m, h) or none for seconds, and are said back", () => {
    expect(parseDuration("90", "--idle-exit")).toBe(90_000);
    expect(parseDuration("90s", "--idle-exit")).toBe(90_000);
    expect(parseDuration("15m", "--idle-exit")).toBe(900_000);
    expect(parseDuration("1h", "--idle-exit")).toBe(3_600_000);
    expect(parseDuration("250ms", "--idle-exit")).toBe(250);
    expect(parseDuration("0", "--idle-exit")).toBe(0);
    expect(sayDuration(900_000)).toBe("15 min");
    expect(sayDuration(90_000)).toBe("90 s");
    expect(sayDuration(3_600_000)).toBe("1 h");
  });

  it("name the value at fault otherwise", () => {
    expect(() => parseDuration("soon", "$OLLIE_IDLE_EXIT")).toThrow(
      "$OLLIE_IDLE_EXIT takes a duration such as 90s, 15m or 1h (or 0: never), not 'soon'",
    );
    expect(() => parseDuration("1.5m", "--idle-exit")).toThrow(/not '1\.5m'/);
  });
});
