import { OREAD, OWRITE } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { eventually, servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { Fifo, fifo } from "./fifo.js";

const serve = servedPerTest();

describe("fifo", () => {
  it("passes bytes written by one client to another, in order", async () => {
    const pipe = new Fifo();
    const served = await serve(dir("/", [file("pipe", fifo(pipe))]));
    const writer = await (await served.attach()).open("pipe", OWRITE);
    const reader = await (await served.attach()).open("pipe", OREAD);
    const reading = reader.read(0, 100);
    await writer.write("hello");
    expect((await reading).toString()).toBe("hello");
    await writer.write("a");
    await writer.write("b");
    expect((await reader.read(0, 100)).toString()).toBe("ab");
  });

  it("makes a writer wait while the buffer is full", async () => {
    const pipe = new Fifo({ capacity: 8 });
    const served = await serve(dir("/", [file("pipe", fifo(pipe))]));
    const writer = await (await served.attach()).open("pipe", OWRITE);
    let written = false;
    const writing = writer.write("0123456789ABCDEF").then(() => {
      written = true;
    });
    await eventually(() => pipe.size === 8);
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(false);
    const reader = await (await served.attach()).open("pipe", OREAD);
    expect((await reader.read(0, 100)).toString()).toBe("01234567");
    await writing;
    expect((await reader.read(0, 100)).toString()).toBe("89ABCDEF");
  });

  it("releases a blocked reader when its fid is clunked", async () => {
    const pipe = new Fifo();
    const served = await serve(dir("/", [file("pipe", fifo(pipe))]));
    const fsys = await served.attach();
    const walked = await fsys.walk("pipe");
    await fsys.client.open(walked.fid, OREAD);
    const read = fsys.client.read(walked.fid, 0n, 100);
    await new Promise((r) => setTimeout(r, 20));
    await fsys.client.clunk(walked.fid);
    await expect(read).rejects.toThrow("interrupted");
    await pipe.write("after");
    expect((await pipe.read(100)).toString()).toBe("after");
  });

  it("gives end-of-file once closed and drained", async () => {
    const pipe = new Fifo();
    const served = await serve(dir("/", [file("pipe", fifo(pipe))]));
    await pipe.write("last words");
    pipe.close();
    expect((await (await served.attach()).readFile("pipe")).toString()).toBe("last words");
    await expect(pipe.write("more")).rejects.toThrow("closed fifo");
  });
});
