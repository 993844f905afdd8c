import { type NinepClient, OREAD } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { eventually, servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { text } from "./text.js";
import { wait } from "./wait.js";
import { WatchedValue } from "./watched-value.js";

const serve = servedPerTest();

describe("wait", () => {
  it("blocks a read until the value changes, and releases another reader by Tflush", async () => {
    const state = new WatchedValue("idle");
    const served = await serve(
      dir("/", [
        file(
          "state",
          text(() => `${state.get()}\n`),
        ),
        file("statewait", wait(state)),
      ]),
    );
    const fsys = await served.attach();
    const changed = (await fsys.open("statewait", OREAD)).read(0);
    const ac = new AbortController();
    const flushed = (await fsys.open("statewait", OREAD)).read(0, 100, ac.signal);
    await eventually(() => state.waiting === 2);
    ac.abort();
    await expect(flushed).rejects.toThrow(/abort/i);
    await eventually(() => state.waiting === 1);
    state.set("idle");
    expect(state.waiting).toBe(1);
    state.set("thinking");
    expect((await changed).toString()).toBe("thinking\n");
    expect((await fsys.readFile("state")).toString()).toBe("thinking\n");
  });

  it("frees every waiter of a connection that closes with pipelined reads on one fid", async () => {
    const state = new WatchedValue("idle");
    const served = await serve(dir("/", [file("statewait", wait(state))]));
    const fsys = await served.attach();
    const f = await fsys.open("statewait", OREAD);
    const reads = Array.from({ length: 500 }, () => f.read(0));
    await eventually(() => state.waiting === 500);
    (fsys.client as NinepClient).close();
    await Promise.allSettled(reads);
    await eventually(() => state.waiting === 0);
    // Nothing of theirs is woken later: the next reader is the only one.
    const next = await (await served.attach()).open("statewait", OREAD);
    const changed = next.read(0);
    await eventually(() => state.waiting === 1);
    state.set("thinking");
    expect((await changed).toString()).toBe("thinking\n");
  });

  it("compares with what this fid last returned: one change for cat, every change for a re-reader", async () => {
    const state = new WatchedValue("idle");
    const served = await serve(dir("/", [file("statewait", wait(state))]));
    const fsys = await served.attach();
    const f = await fsys.open("statewait", OREAD);
    const first = f.read(0);
    await eventually(() => state.waiting === 1);
    state.set("thinking");
    expect((await first).toString()).toBe("thinking\n");
    expect((await f.read(9)).length).toBe(0);
    state.set("calling: shell");
    expect((await f.read(0)).toString()).toBe("calling: shell\n");
    const whole = fsys.readFile("statewait");
    await eventually(() => state.waiting === 1);
    state.set("idle");
    expect((await whole).toString()).toBe("idle\n");
  });

  it("can answer the first read at once", async () => {
    const state = new WatchedValue(3);
    const served = await serve(
      dir("/", [file("n", wait(state, { immediate: true, format: (n) => `n=${n}\n` }))]),
    );
    expect((await (await served.attach()).readFile("n")).toString()).toBe("n=3\n");
  });
});
