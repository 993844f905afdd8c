import { OREAD } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { eventually, servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { AppendBuffer } from "./append-buffer.js";
import { log } from "./log.js";

const serve = servedPerTest();

describe("log", () => {
  it("wakes 100 readers blocked at the end with one append", async () => {
    const chat = new AppendBuffer();
    chat.append("hello\n");
    const served = await serve(dir("/", [file("chat", log(chat))]));
    const readers = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const fsys = await served.attach();
        const f = await fsys.open("chat", OREAD);
        expect((await f.read(0)).toString()).toBe("hello\n");
        return f;
      }),
    );
    const pending = readers.map((f) => f.read(6));
    await eventually(() => chat.waiting === 100);
    chat.append("world\n");
    expect((await Promise.all(pending)).map(String)).toEqual(Array(100).fill("world\n"));
  });

  it("lets each reader go at its own pace, and a tail reader start at the end", async () => {
    const stream = new AppendBuffer();
    const served = await serve(
      dir("/", [file("log", log(stream)), file("tail", log(stream, { from: "end" }))]),
    );
    const fsys = await served.attach();
    stream.append("one\n");
    const tail = await fsys.open("tail", OREAD);
    stream.append("two\n");
    const all = await fsys.open("log", OREAD);
    expect((await all.read(0)).toString()).toBe("one\ntwo\n");
    expect((await tail.read(0)).toString()).toBe("two\n");
    stream.close();
    expect((await all.read(8)).length).toBe(0);
  });

  it("gives a reader that fell behind what is retained and no more", async () => {
    const stream = new AppendBuffer({ retain: 10 });
    const served = await serve(dir("/", [file("log", log(stream))]));
    const fsys = await served.attach();
    const slow = await fsys.open("log", OREAD);
    stream.append("0123456789");
    expect((await slow.read(0, 4)).toString()).toBe("0123");
    stream.append("abcdefghij");
    expect((await slow.read(4)).toString()).toBe("abcdefghij");
    stream.append("KLMNO");
    expect((await slow.read(14)).toString()).toBe("KLMNO");
    expect(stream.start).toBe(15);
    stream.close();
    expect((await fsys.readFile("log")).toString()).toBe("fghijKLMNO");
  });

  it("releases a blocked reader when its request is flushed", async () => {
    const stream = new AppendBuffer();
    const served = await serve(dir("/", [file("log", log(stream))]));
    const f = await (await served.attach()).open("log", OREAD);
    const ac = new AbortController();
    const read = f.read(0, 100, ac.signal);
    await eventually(() => stream.waiting === 1);
    ac.abort();
    await expect(read).rejects.toThrow(/abort/i);
    await eventually(() => stream.waiting === 0);
  });
});
