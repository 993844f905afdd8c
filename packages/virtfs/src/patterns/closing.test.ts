import { OREAD, OWRITE } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { eventually, servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { AppendBuffer } from "./append-buffer.js";
import { Fifo, fifo } from "./fifo.js";
import { log } from "./log.js";
import { wait } from "./wait.js";
import { WatchedValue } from "./watched-value.js";

const serve = servedPerTest();

/** Every blocking pattern can be ended with an error, which its blocked readers get at once, over 9P. */
describe("closing a blocking file's source", () => {
  it("wakes wait readers, now and later, with the error", async () => {
    const state = new WatchedValue("idle");
    const fsys = await (await serve(dir("/", [file("statewait", wait(state))]))).attach();
    const blocked = [1, 2, 3].map(async () => (await fsys.open("statewait", OREAD)).read(0));
    await eventually(() => state.waiting === 3);
    state.close(new Error("session killed"));
    for (const read of blocked) await expect(read).rejects.toThrow("session killed");
    await expect(fsys.readFile("statewait")).rejects.toThrow("session killed");
    expect(state.get()).toBe("idle");
  });

  it("wakes log readers at the end with the error, after what was appended", async () => {
    const stream = new AppendBuffer();
    stream.append("said before\n");
    const fsys = await (await serve(dir("/", [file("chat", log(stream))]))).attach();
    const f = await fsys.open("chat", OREAD);
    expect((await f.read(0)).toString()).toBe("said before\n");
    const tail = f.read(12);
    await eventually(() => stream.waiting === 1);
    stream.close(new Error("session killed"));
    await expect(tail).rejects.toThrow("session killed");
    expect((await (await fsys.open("chat", OREAD)).read(0)).toString()).toBe("said before\n");
  });

  it("wakes fifo readers and writers with the error, after readers drain what was buffered", async () => {
    const pipe = new Fifo({ capacity: 4 });
    const fsys = await (await serve(dir("/", [file("fifo", fifo(pipe), 0o666)]))).attach();
    const writer = await fsys.open("fifo", OWRITE);
    const stuck = writer.write("12345678");
    await eventually(() => pipe.size === 4);
    pipe.close(new Error("agent killed"));
    await expect(stuck).rejects.toThrow("agent killed");
    const reader = await fsys.open("fifo", OREAD);
    expect((await reader.read(0)).toString()).toBe("1234");
    await expect(reader.read(4)).rejects.toThrow("agent killed");
  });
});
