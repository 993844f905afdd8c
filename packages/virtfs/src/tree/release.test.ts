import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { OREAD } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { eventually, servedPerTest } from "../__fixtures__/serve-tree.js";
import { AppendBuffer } from "../patterns/append-buffer.js";
import { log } from "../patterns/log.js";
import { text } from "../patterns/text.js";
import { wait } from "../patterns/wait.js";
import { WatchedValue } from "../patterns/watched-value.js";
import { dir, each, file } from "../spec/node-spec.js";

const serve = servedPerTest();

interface Item {
  id: string;
  body: string;
  state: WatchedValue<string>;
  events: AppendBuffer;
}

/** A collection of items, each a directory of files; counts the declarations `child(item)` made. */
function itemsTree() {
  const items = new Map<string, Item>();
  const add = (id: string) => {
    const item = { id, body: "", state: new WatchedValue("idle"), events: new AppendBuffer() };
    items.set(id, item);
    return item;
  };
  const declared = { count: 0, last: new WeakRef({}) };
  const root = dir("/", [
    each(
      "items",
      () => items.values(),
      (item: Item) => {
        declared.count++;
        // Something only this declaration's closures hold, to see when the declaration is let go of.
        const token = { id: item.id };
        declared.last = new WeakRef(token);
        return dir(item.id, [
          file(
            "body",
            text(() => `${token.id}: ${item.body}`, {
              write: (t) => {
                item.body = t;
              },
            }),
          ),
          file("state", wait(item.state)),
          file("events", log(item.events)),
          dir("deep", [
            file(
              "leaf",
              text(() => "leaf"),
            ),
          ]),
        ]);
      },
      { key: (item) => item.id, lookup: (id) => items.get(id) },
    ),
  ]);
  return { root, add, declared };
}

describe("declarations below collection entries", () => {
  it("are let go of once no fid refers into the entry, and made again with the same qids, versions and times", async () => {
    const { root, add, declared } = itemsTree();
    add("a");
    const served = await serve(root);
    const fsys = await served.attach();
    await fsys.writeFile("items/a/body", "one");
    const before = await Promise.all(
      ["items/a", "items/a/body", "items/a/state", "items/a/deep/leaf"].map((p) => fsys.stat(p)),
    );
    expect(before[1]!.qid.version).toBe(1);
    const made = declared.count;
    await eventually(() => served.server.stats().fids === 1);
    await collectGarbage();
    expect(declared.last.deref()).toBeUndefined();

    const after = await Promise.all(
      ["items/a", "items/a/body", "items/a/state", "items/a/deep/leaf"].map((p) => fsys.stat(p)),
    );
    expect(declared.count).toBeGreaterThan(made);
    expect(after.map((s) => s.qid)).toEqual(before.map((s) => s.qid));
    expect(after.map((s) => s.mtime)).toEqual(before.map((s) => s.mtime));
    expect((await fsys.readdir("items")).map((s) => s.qid)).toEqual([before[0]!.qid]);
    expect((await fsys.readFile("items/a/body")).toString()).toBe("a: one");
    await fsys.writeFile("items/a/body", "two");
    expect((await fsys.stat("items/a/body")).qid).toEqual({ ...before[1]!.qid, version: 2 });
  });

  it("are kept while a fid refers anywhere into the entry", async () => {
    const { root, add, declared } = itemsTree();
    add("a");
    add("b");
    const served = await serve(root);
    const fsys = await served.attach();
    const held = await fsys.walk("items/a/deep/leaf");
    const made = declared.count;
    for (let i = 0; i < 3; i++) {
      expect((await fsys.readFile("items/a/body")).toString()).toBe("a: ");
      await fsys.stat("items/a/deep");
    }
    expect(declared.count).toBe(made);
    await collectGarbage();
    expect(declared.last.deref()).toBeDefined();
    // Another entry's are let go of as before.
    await fsys.stat("items/b/body");
    expect(declared.count).toBe(made + 1);
    await fsys.client.clunk(held.fid);
    await fsys.stat("items/a/body");
    expect(declared.count).toBe(made + 2);
  });

  it("serve blocking reads opened before or after they were made again", async () => {
    const { root, add } = itemsTree();
    const item = add("a");
    const served = await serve(root);
    const fsys = await served.attach();
    await fsys.stat("items/a/state");
    const state = await fsys.open("items/a/state", OREAD);
    const events = await fsys.open("items/a/events", OREAD);
    const waitingState = state.read(0);
    const waitingEvents = events.read(0);
    await eventually(() => item.state.waiting === 1 && item.events.waiting === 1);
    // Other clients come and go inside the entry meanwhile.
    const other = await served.attach();
    for (let i = 0; i < 3; i++) await other.readFile("items/a/deep/leaf");
    item.state.set("thinking");
    item.events.append("started\n");
    expect((await waitingState).toString()).toBe("thinking\n");
    expect((await waitingEvents).toString()).toBe("started\n");
    await state.close();
    await events.close();

    // Nothing refers into the entry now: a new blocking read declares it again and is woken the same way.
    const again = await fsys.open("items/a/state", OREAD);
    const waiting = again.read(0);
    await eventually(() => item.state.waiting === 1);
    item.state.set("idle");
    expect((await waiting).toString()).toBe("idle\n");
    await again.close();
  });
});

/** A full collection (the flag is set at run time: vitest's workers do not start with --expose-gc). */
async function collectGarbage(): Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  await new Promise((r) => setImmediate(r));
  gc();
}
