import { OREAD, OTRUNC, OWRITE } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { AppendBuffer } from "./append-buffer.js";
import { clone } from "./clone.js";
import { ctl } from "./ctl.js";
import { Fifo, fifo } from "./fifo.js";
import { log } from "./log.js";
import { text } from "./text.js";
import { wait } from "./wait.js";
import { WatchedValue } from "./watched-value.js";

const serve = servedPerTest();

/** A text file over `value`, counting the calls of its `produce`. */
function counted(value: { now: string }, options: { size?: boolean } = {}) {
  const calls = { produce: 0 };
  const handlers = text(() => {
    calls.produce++;
    return value.now;
  }, options);
  return { calls, handlers };
}

describe("the length stat reports", () => {
  it("is, for a text file, the bytes a read returns now, in a stat, a listing and 9P2000.L's getattr", async () => {
    const value = { now: "héllo\n" };
    const served = await serve(dir("/", [file("v", counted(value).handlers)]));
    const fsys = await served.attach();
    const linux = await served.attach("owner", { dialect: "9P2000.L" });
    expect((await fsys.stat("v")).length).toBe(7n);
    expect((await fsys.readdir("/"))[0]!.length).toBe(7n);
    expect((await linux.stat("v")).length).toBe(7n);
    value.now = "a longer value\n";
    expect((await fsys.stat("v")).length).toBe(15n);
    expect((await linux.readFile("v")).toString()).toBe("a longer value\n");
  });

  it("is, on an open fid, the length of that open's snapshot, and reading a whole file produces it once", async () => {
    const value = { now: "first\n" };
    const { calls, handlers } = counted(value);
    const served = await serve(dir("/", [file("v", handlers)]));
    const fsys = await served.attach();
    const f = await fsys.open("v", OREAD);
    value.now = "second, longer\n";
    expect((await f.stat()).length).toBe(6n);
    expect((await f.read(0, 100)).toString()).toBe("first\n");
    await f.close();
    calls.produce = 0;
    // A whole-file read sends its open and its stat together; the stat, run after the open, tells the
    // length of the open's snapshot.
    expect((await fsys.readFile("v")).toString()).toBe("second, longer\n");
    expect(calls.produce).toBe(1);
  });

  it("is 0 for a text file declared with size: false, which is not produced for a stat or a listing", async () => {
    const value = { now: "costly\n" };
    const { calls, handlers } = counted(value, { size: false });
    const served = await serve(dir("/", [file("v", handlers)]));
    const fsys = await served.attach();
    expect((await fsys.stat("v")).length).toBe(0n);
    expect((await fsys.readdir("/"))[0]!.length).toBe(0n);
    expect(calls.produce).toBe(0);
    const f = await fsys.open("v", OREAD);
    expect((await f.stat()).length).toBe(7n);
    await f.close();
  });

  it("is 0 for a text file whose content cannot be made now, and the open says why", async () => {
    const served = await serve(
      dir("/", [
        file(
          "broken",
          text(async () => {
            throw new Error("the backend is down");
          }),
        ),
      ]),
    );
    const fsys = await served.attach();
    expect((await fsys.stat("broken")).length).toBe(0n);
    await expect(fsys.readFile("broken")).rejects.toThrow("the backend is down");
  });

  it("is a ctl file's command list, and 0 for files that block, stream or answer per open", async () => {
    const buffered = new Fifo();
    await buffered.write("waiting to be read\n");
    const appended = new AppendBuffer();
    appended.append("a line\n");
    const served = await serve(
      dir("/", [
        file("ctl", ctl({ start: () => {}, stop: () => {} })),
        file("wait", wait(new WatchedValue("idle"))),
        file("log", log(appended)),
        file("fifo", fifo(buffered)),
        file(
          "new",
          clone(() => "1"),
        ),
      ]),
    );
    const lengths = Object.fromEntries(
      (await (await served.attach()).readdir("/")).map((s) => [s.name, s.length]),
    );
    expect(lengths).toEqual({ ctl: 11n, wait: 0n, log: 0n, fifo: 0n, new: 0n });
  });
});

describe("a write at the length stat reported", () => {
  it("adds to what a text file held, as `>>` on a mount does, unless the open truncated it", async () => {
    let value = "one\n";
    const served = await serve(
      dir("/", [
        file(
          "list",
          text(() => value, {
            write: (v) => {
              value = v;
            },
          }),
        ),
      ]),
    );
    const fsys = await served.attach();
    const { length } = await fsys.stat("list");
    await fsys.withFile("list", OWRITE, (f) => f.write("two\n", length));
    expect(value).toBe("one\ntwo\n");
    await fsys.withFile("list", OWRITE | OTRUNC, (f) => f.write("three\n", 0));
    expect(value).toBe("three\n");
  });
});
