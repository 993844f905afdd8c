import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DaemonLock, type LockTaken, lockName, watchLock } from "./daemon-lock.js";

const dir = mkdtempSync(join(tmpdir(), "olliesrv-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The lock a take got (failing the test when it got none). */
function taken(result: LockTaken): DaemonLock {
  if (!("lock" in result)) throw new Error(`no lock: ${JSON.stringify(result)}`);
  return result.lock;
}

describe("the lock of an address", () => {
  it("is named for the user and the socket's whole path, within an abstract name's 107 bytes", () => {
    const name = lockName(join(dir, "ollie"), 1000);
    expect(name.startsWith("\0ollie/olliesrv/1000/")).toBe(true);
    expect(name).not.toBe(lockName(join(dir, "ollie"), 1001));
    expect(name).not.toBe(lockName(join(dir, "other"), 1000));
    expect(lockName(`${dir}/./ollie`, 1000)).toBe(name);
    expect(Buffer.byteLength(lockName(`/${"long/".repeat(100)}ollie`))).toBeLessThanOrEqual(107);
  });

  it("is taken by one of two takes at once; the other follows the holder's states to its end", async () => {
    const path = join(dir, "race");
    const [a, b] = await Promise.all([DaemonLock.take(path), DaemonLock.take(path)]);
    const winner = taken("lock" in a ? a : b);
    const loser = "lock" in a ? b : a;
    expect(loser).toMatchObject({ held: { pid: process.pid }, state: "starting" });
    const { held } = loser as Extract<LockTaken, { held: unknown }>;
    winner.set("ready");
    expect(await held.ready).toBe("ready");
    winner.release();
    await held.gone;
    held.close();
    // Free again once let go.
    taken(await DaemonLock.take(path)).release();
  });

  it("tells a watcher that comes later the state now, and that a stopping holder will not serve", async () => {
    const path = join(dir, "late");
    const lock = taken(await DaemonLock.take(path));
    lock.set("ready");
    const late = await watchLock(path);
    if (!late || !("pid" in late)) throw new Error("no holder seen");
    expect(await late.first).toBe("ready");
    late.close();
    lock.set("stopping");
    const stopping = await watchLock(path);
    if (!stopping || !("pid" in stopping)) throw new Error("no holder seen");
    expect(await stopping.first).toBe("stopping");
    expect(await stopping.ready).toBeUndefined();
    lock.release();
    await stopping.gone;
  });

  it("is seen free when nobody holds it", async () => {
    expect(await watchLock(join(dir, "nobody"))).toBeUndefined();
  });
});
