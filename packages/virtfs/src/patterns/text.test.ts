import { ORDWR, OREAD, OWRITE } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { text } from "./text.js";

const serve = servedPerTest();

describe("text", () => {
  it("serves each open a snapshot taken at open, so a reader never sees a torn value", async () => {
    let value = "A".repeat(100);
    const served = await serve(
      dir("/", [
        file(
          "v",
          text(() => value),
        ),
      ]),
    );
    const fsys = await served.attach();
    const f = await fsys.open("v", OREAD);
    const head = await f.read(0, 10);
    value = "B".repeat(100);
    const tail = await f.read(10, 1000);
    await f.close();
    expect(Buffer.concat([head, tail]).toString()).toBe("A".repeat(100));
    expect((await fsys.readFile("v")).toString()).toBe("B".repeat(100));
  });

  it("hands over what one open wrote when it is clunked, and reports a refusal on the clunk", async () => {
    const got: string[] = [];
    const served = await serve(
      dir("/", [
        file(
          "cfg",
          text(() => "", {
            write: (t) => {
              if (t.includes("bad")) throw new Error(`cannot parse '${t.trim()}'`);
              got.push(t);
            },
          }),
        ),
      ]),
    );
    const fsys = await served.attach();
    await fsys.withFile("cfg", OWRITE, async (f) => {
      await f.write("key=", 0);
      await f.write("value\n", 4);
    });
    expect(got).toEqual(["key=value\n"]);
    await expect(fsys.writeFile("cfg", "bad line\n")).rejects.toThrow("cannot parse 'bad line'");
    expect(got).toEqual(["key=value\n"]);
  });

  it("with answerReads, answers a read after writes on one open, each new write a new request", async () => {
    const got: string[] = [];
    const served = await serve(
      dir("/", [
        file(
          "ask",
          text(undefined, {
            answerReads: true,
            write: (t) => {
              got.push(t);
              return `#${got.length}\n`;
            },
          }),
        ),
      ]),
    );
    const fsys = await served.attach();
    await fsys.withFile("ask", ORDWR, async (f) => {
      expect((await f.read(0)).toString()).toBe("");
      await f.write("two ", 0);
      await f.write("parts", 4);
      expect((await f.read(0)).toString()).toBe("#1\n");
      expect((await f.read(0)).toString()).toBe("#1\n");
      await f.write("next", 0);
      expect((await f.read(0)).toString()).toBe("#2\n");
    });
    expect(got).toEqual(["two parts", "next"]);
    await fsys.writeFile("ask", "at the clunk");
    expect(got).toEqual(["two parts", "next", "at the clunk"]);
  });

  it("refuses what goes past maxBytes before storing it, a write far out included", async () => {
    const got: string[] = [];
    const served = await serve(
      dir("/", [
        file("small", text(undefined, { write: (t) => void got.push(t), maxBytes: 8 })),
        file("default", text(undefined, { write: (t) => void got.push(t) })),
        file(
          "said",
          text(undefined, { write: () => {}, maxBytes: 1024, tooLong: (l) => `prompts are ${l} at most` }),
        ),
      ]),
    );
    const fsys = await served.attach();
    await expect(fsys.writeFile("small", "123456789")).rejects.toThrow("this file takes at most 8 bytes");
    // What came before the write that went past the limit is not delivered either.
    await expect(
      fsys.withFile("small", OWRITE, async (f) => {
        await f.write("1234", 0);
        await f.write("56789", 4);
      }),
    ).rejects.toThrow("this file takes at most 8 bytes");
    await fsys.writeFile("small", "12345678");
    await expect(fsys.withFile("default", OWRITE, (f) => f.write("x", 2 ** 40))).rejects.toThrow(
      "this file takes at most 1 MiB",
    );
    await expect(fsys.writeFile("said", "y".repeat(1025))).rejects.toThrow("prompts are 1 KiB at most");
    expect(got).toEqual(["12345678"]);
  });

  it("hands over each write as it comes with writeOn 'write'", async () => {
    const got: string[] = [];
    const served = await serve(
      dir("/", [file("in", text(undefined, { write: (t) => void got.push(t), writeOn: "write" }))]),
    );
    const fsys = await served.attach();
    await fsys.withFile("in", OWRITE, async (f) => {
      await f.write("one");
      expect(got).toEqual(["one"]);
      await f.write("two");
    });
    expect(got).toEqual(["one", "two"]);
    await expect(fsys.readFile("in")).rejects.toThrow("permission denied");
  });
});
