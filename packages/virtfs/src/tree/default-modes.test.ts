import { DM, OREAD } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { AppendBuffer } from "../patterns/append-buffer.js";
import { clone } from "../patterns/clone.js";
import { ctl } from "../patterns/ctl.js";
import { Fifo, fifo } from "../patterns/fifo.js";
import { log } from "../patterns/log.js";
import { text } from "../patterns/text.js";
import { wait } from "../patterns/wait.js";
import { WatchedValue } from "../patterns/watched-value.js";
import { dir, each, file } from "../spec/node-spec.js";

const serve = servedPerTest();

const entry = (name: string) => file(name, {});

/** A setting reachable two ways, as services often make one: its own file, and a `ctl` command. */
function settings() {
  const values = new Map([["colour", "blue"]]);
  const tree = dir("/", [
    file("ctl", ctl({ set: ([key = "", value = ""]) => void values.set(key, value) })),
    file(
      "colour",
      text(() => `${values.get("colour")}\n`, { write: (v) => void values.set("colour", v.trim()) }),
    ),
  ]);
  return { values, tree };
}

describe("modes of files declared without one", () => {
  it("refuse another uname a ctl command, and the owner's commands run", async () => {
    const { values, tree } = settings();
    const served = await serve(tree);
    const other = await served.attach("mallory");
    await expect(other.writeFile("ctl", "set colour red\n")).rejects.toThrow("permission denied");
    expect(values.get("colour")).toBe("blue");
    const owner = await served.attach("owner");
    await owner.writeFile("ctl", "set colour green\n");
    expect(values.get("colour")).toBe("green");
  });

  it("refuse another uname the direct write and the same key through ctl alike", async () => {
    const { values, tree } = settings();
    const served = await serve(tree);
    const other = await served.attach("mallory");
    await expect(other.writeFile("colour", "red\n")).rejects.toThrow("permission denied");
    await expect(other.writeFile("ctl", "set colour red\n")).rejects.toThrow("permission denied");
    expect(values.get("colour")).toBe("blue");
    expect((await other.readFile("colour")).toString()).toBe("blue\n");
    expect((await other.readFile("ctl")).toString()).toBe("set\n");
  });

  it("are 0644 for what can be written, 0444 for what cannot, 0600 for a fifo", async () => {
    const value = new WatchedValue(0);
    const served = await serve(
      dir("/", [
        file(
          "ro",
          text(() => "x"),
        ),
        file(
          "rw",
          text(() => "x", { write: () => {} }),
        ),
        file("wo", text(undefined, { write: () => {} })),
        file("ctl", ctl({ go: () => {} })),
        file(
          "new",
          clone(() => "1"),
        ),
        file("log", log(new AppendBuffer())),
        file("wait", wait(value)),
        file("fifo", fifo(new Fifo())),
        dir("fixed", []),
        each("listed", () => [], entry),
        each("made", () => [], entry, { create: (name) => name }),
        each("removable", () => [], entry, { remove: () => {} }),
      ]),
    );
    const fsys = await served.attach("owner");
    const modes = Object.fromEntries(
      (await fsys.readdir("/")).map((s) => [s.name, (s.mode & ~DM.DIR).toString(8)]),
    );
    expect(modes).toEqual({
      ro: "444",
      rw: "644",
      wo: "200",
      ctl: "644",
      new: "644",
      log: "444",
      wait: "444",
      fifo: "600",
      fixed: "555",
      listed: "555",
      made: "755",
      removable: "755",
    });
  });

  it("let the owner remove entries of a collection that only offers `remove`", async () => {
    const names = new Set(["old"]);
    const served = await serve(
      dir("/", [each("items", () => names, entry, { remove: (name) => void names.delete(name) })]),
    );
    await expect((await served.attach("mallory")).remove("items/old")).rejects.toThrow("permission denied");
    await (await served.attach("owner")).remove("items/old");
    expect(names.size).toBe(0);
  });

  it("keep a fifo from others: a read would take what was written for the owner", async () => {
    const pipe = new Fifo();
    const served = await serve(dir("/", [file("fifo", fifo(pipe))]));
    await expect((await served.attach("mallory")).open("fifo", OREAD)).rejects.toThrow("permission denied");
    await pipe.write("for the owner\n");
    const owner = await served.attach("owner");
    const f = await owner.open("fifo", OREAD);
    expect((await f.read(0)).toString()).toBe("for the owner\n");
  });

  it("let others write where the declaration says so", async () => {
    const { values } = settings();
    const served = await serve(
      dir("/", [file("ctl", ctl({ set: ([k = "", v = ""]) => void values.set(k, v) }), 0o666)]),
    );
    await (await served.attach("mallory")).writeFile("ctl", "set colour red\n");
    expect(values.get("colour")).toBe("red");
  });
});
