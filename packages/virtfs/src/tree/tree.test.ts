import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DM, ORDWR, OREAD, OWRITE, QT } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { text } from "../patterns/text.js";
import { alias, dir, each, file } from "../spec/node-spec.js";
import type { PermissionDenial } from "./tree-options.js";

const serve = servedPerTest();

describe("declared trees", () => {
  it("lists an each directory from the live collection, with additions and removals between listings", async () => {
    const items = new Set(["a", "b"]);
    const served = await serve(
      dir("/", [
        each(
          "items",
          () => items,
          (name) =>
            file(
              name,
              text(() => `item ${name}\n`),
            ),
        ),
      ]),
    );
    const fsys = await served.attach();
    expect((await fsys.readdir("items")).map((s) => s.name)).toEqual(["a", "b"]);
    items.add("c");
    items.delete("a");
    expect((await fsys.readdir("items")).map((s) => s.name)).toEqual(["b", "c"]);
    expect((await fsys.readFile("items/c")).toString()).toBe("item c\n");
    await expect(fsys.stat("items/a")).rejects.toThrow("'a' file not found");
  });

  it("keeps one qid path per node instance, and a new one for an item that is replaced", async () => {
    const sessions = new Map([["s1", { id: "s1" }]]);
    const served = await serve(
      dir("/", [
        each(
          "session",
          () => sessions.values(),
          (s) =>
            dir(s.id, [
              file(
                "id",
                text(() => s.id),
              ),
            ]),
          { key: (s) => s.id, lookup: (id) => sessions.get(id) },
        ),
      ]),
    );
    const fsys = await served.attach();
    const first = await fsys.stat("session/s1/id");
    expect((await fsys.stat("session/s1/id")).qid).toEqual(first.qid);
    expect((await fsys.readdir("session"))[0]!.qid).toEqual((await fsys.stat("session/s1")).qid);
    sessions.set("s1", { id: "s1" });
    expect((await fsys.stat("session/s1/id")).qid.path).not.toBe(first.qid.path);
  });

  it("bumps the qid version with each write, and reports owners, modes and times", async () => {
    let value = "";
    const served = await serve(
      dir("/", [
        file(
          "v",
          text(() => value, {
            write: (t) => {
              value = t;
            },
          }),
          { mode: 0o640, group: "staff" },
        ),
      ]),
    );
    const fsys = await served.attach();
    const before = await fsys.stat("v");
    expect(before).toMatchObject({ name: "v", uid: "owner", gid: "staff", mode: 0o640, length: 0n });
    expect(before.qid).toMatchObject({ type: QT.FILE, version: 0 });
    expect(Math.abs(before.mtime - Date.now() / 1000)).toBeLessThan(60);
    await fsys.writeFile("v", "x");
    expect((await fsys.stat("v")).qid.version).toBe(1);
    expect(value).toBe("x");
    const root = await fsys.stat("/");
    expect(root).toMatchObject({ name: "/", mode: (DM.DIR | 0o555) >>> 0 });
  });

  it("follows aliases, fixed or computed at each walk", async () => {
    let latest: string | undefined = "b";
    const served = await serve(
      dir("/", [
        dir("data", [
          file(
            "a",
            text(() => "A"),
          ),
          file(
            "b",
            text(() => "B"),
          ),
        ]),
        alias("first", "data/a"),
        alias("latest", () => (latest ? `data/${latest}` : undefined)),
      ]),
    );
    const fsys = await served.attach();
    expect((await fsys.readFile("first")).toString()).toBe("A");
    expect((await fsys.readFile("latest")).toString()).toBe("B");
    latest = "a";
    expect((await fsys.readFile("latest")).toString()).toBe("A");
    latest = undefined;
    await expect(fsys.stat("latest")).rejects.toThrow("file not found");
    expect((await fsys.readdir("/")).map((s) => s.name)).toEqual(["data", "first"]);
  });

  it("releases the nodes of items a service removed itself when the collection is pruned", async () => {
    type Item = { name: string; body: Buffer };
    const items = new Map<string, Item>([["big", { name: "big", body: Buffer.alloc(1024) }]]);
    const served = await serve(
      dir("/", [
        each(
          "items",
          () => items.values(),
          (item: Item) =>
            file(
              item.name,
              text(() => item.body),
            ),
          { key: (item) => item.name, lookup: (name) => items.get(name) },
        ),
      ]),
    );
    const fsys = await served.attach();
    expect((await fsys.readFile("items/big")).length).toBe(1024);
    const gone = new WeakRef(items.get("big")!);
    items.delete("big");
    await collectGarbage();
    expect(gone.deref()).toBeDefined();
    served.tree.prune("/items");
    await collectGarbage();
    expect(gone.deref()).toBeUndefined();
    await expect(fsys.stat("items/big")).rejects.toThrow("file not found");
  });

  it("creates and removes entries of a collection through Tcreate and Tremove", async () => {
    const notes = new Map<string, string>();
    const served = await serve(
      dir("/", [
        each(
          "notes",
          () => notes.keys(),
          (name) =>
            file(
              name,
              text(() => notes.get(name) ?? "", { write: (t) => void notes.set(name, t) }),
            ),
          {
            create: (name) => {
              notes.set(name, "");
              return name;
            },
            remove: (name) => void notes.delete(name),
          },
        ),
      ]),
    );
    const fsys = await served.attach();
    const f = await fsys.create("notes/todo", { mode: OWRITE });
    await f.write("buy milk");
    await f.close();
    expect(notes.get("todo")).toBe("buy milk");
    await fsys.remove("notes/todo");
    expect(notes.has("todo")).toBe(false);
    await expect(fsys.create("/x", { mode: OWRITE })).rejects.toThrow("create prohibited");
  });
});

describe("permissions on creation", () => {
  it("give the creator the open mode it asked for, whatever the new file's permissions", async () => {
    const drafts = new Map<string, string>();
    const served = await serve(
      dir("/", [
        each(
          "sealed",
          () => drafts.keys(),
          (name) =>
            file(
              name,
              text(() => drafts.get(name) ?? "", { write: (t) => void drafts.set(name, t) }),
              0o444,
            ),
          {
            create: (name) => {
              drafts.set(name, "");
              return name;
            },
          },
        ),
      ]),
    );
    const fsys = await served.attach();
    const f = await fsys.create("sealed/letter", { mode: OWRITE });
    await f.write("dear glenda");
    await f.close();
    expect(drafts.get("letter")).toBe("dear glenda");
    await expect(fsys.writeFile("sealed/letter", "changed")).rejects.toThrow("permission denied");
  });
});

describe("permissions", () => {
  const tree = () =>
    dir("/", [
      file(
        "inbox",
        text(() => "", { write: () => {} }),
        { mode: 0o466, owner: "agent" },
      ),
      file(
        "secret",
        text(() => "s3cret"),
        { mode: 0o600, owner: "alice" },
      ),
      dir(
        "private",
        [
          file(
            "x",
            text(() => "x"),
          ),
        ],
        { mode: 0o700, owner: "alice" },
      ),
    ]);

  it("refuses the owner a write to a 0466 file that others may write", async () => {
    const served = await serve(tree());
    const agent = await served.attach("agent");
    await expect(agent.writeFile("inbox", "hello me")).rejects.toThrow("permission denied");
    const other = await served.attach("human");
    await other.writeFile("inbox", "hello agent");
    expect((await agent.readFile("inbox")).toString()).toBe("");
  });

  it("refuses strangers a 0600 file and a 0700 directory, and lets the owner in", async () => {
    const served = await serve(tree());
    const stranger = await served.attach("mallory");
    await expect(stranger.readFile("secret")).rejects.toThrow("permission denied");
    await expect(stranger.readdir("private")).rejects.toThrow("permission denied");
    const privateDir = await stranger.walk("private");
    await expect(stranger.client.walk(privateDir.fid, ["x"])).rejects.toThrow("permission denied");
    const alice = await served.attach("alice");
    expect((await alice.readFile("secret")).toString()).toBe("s3cret");
    expect((await alice.readFile("private/x")).toString()).toBe("x");
  });

  it("reports each refusal to onDenied with who, where and what", async () => {
    const denials: PermissionDenial[] = [];
    const served = await serve(tree(), { onDenied: (d) => denials.push(d) });
    const agent = await served.attach("agent");
    await expect(agent.writeFile("inbox", "hello me")).rejects.toThrow("permission denied");
    const stranger = await served.attach("mallory");
    await expect(stranger.readFile("secret")).rejects.toThrow("permission denied");
    await expect(stranger.readdir("private")).rejects.toThrow("permission denied");
    expect(denials).toEqual([
      { uname: "agent", path: "/inbox", access: "write" },
      { uname: "mallory", path: "/secret", access: "read" },
      { uname: "mallory", path: "/private", access: "read" },
    ]);
  });

  it("asks a pluggable group function", async () => {
    const served = await serve(
      dir("/", [
        file(
          "team",
          text(() => "plans"),
          { mode: 0o040, owner: "lead", group: "team" },
        ),
      ]),
      {
        inGroup: (uname, gid) => gid === "team" && uname.startsWith("team-"),
      },
    );
    expect((await (await served.attach("team-bob")).readFile("team")).toString()).toBe("plans");
    await expect((await served.attach("lead")).readFile("team")).rejects.toThrow("permission denied");
    await expect((await served.attach("bob")).readFile("team")).rejects.toThrow("permission denied");
  });

  it("opens read-only files for reading only", async () => {
    const served = await serve(
      dir("/", [
        file(
          "ro",
          text(() => "ro"),
        ),
      ]),
    );
    const fsys = await served.attach("anyone");
    await expect(fsys.open("ro", ORDWR)).rejects.toThrow("permission denied");
    await (await fsys.open("ro", OREAD)).close();
  });
});

describe("declarations", () => {
  it("refuse duplicate and bad names", () => {
    expect(() => dir("/", [file("a", {}), file("a", {})])).toThrow("declares 'a' twice");
    expect(() => file("a/b", {})).toThrow("not a valid file name");
    expect(() => dir("..", [])).toThrow("not a valid file name");
  });
});

/** A full collection (the flag is set at run time: vitest's workers do not start with --expose-gc). */
async function collectGarbage(): Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  await new Promise((r) => setImmediate(r));
  gc();
}
