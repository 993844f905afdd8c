import { afterEach, describe, expect, it } from "vitest";
import { BlockingFs } from "../__fixtures__/blocking-fs.js";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import { DM, OREAD, OWRITE } from "../codec/constants.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { NinepClient } from "./client.js";
import { ConnectionClosedError, NinepRemoteError } from "./errors.js";

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function ramfs() {
  harness = (await serve(new Ramfs({ owner: "glenda" }))) as Harness<unknown>;
  const client = await harness.client();
  return { client, fsys: await client.attach({ uname: "glenda" }) };
}

describe("NinepClient", () => {
  it("negotiates the msize down to what the server allows", async () => {
    harness = (await serve(new Ramfs(), { maxMsize: 4096 })) as Harness<unknown>;
    const client = await harness.client(1 << 20);
    expect(client.msize).toBe(4096);
    expect(client.maxIo).toBe(4072);
  });

  it("writes, reads back, lists, stats, renames and removes by path", async () => {
    const { fsys } = await ramfs();
    await fsys.mkdir("a");
    await fsys.writeFile("a/f", "first");
    await fsys.writeFile("a/f", "second");
    expect((await fsys.readFile("a/f")).toString()).toBe("second");
    await fsys.writeFile("a/f", "X", { truncate: false });
    expect((await fsys.readFile("/a/f")).toString()).toBe("Xecond");
    expect((await fsys.readdir("a")).map((s) => s.name)).toEqual(["f"]);
    const st = await fsys.stat("a/f");
    expect(st).toMatchObject({ name: "f", uid: "glenda", length: 6n, mode: 0o644 });
    await fsys.wstat("a/f", { name: "g", mode: 0o600 });
    expect(await fsys.stat("a/g")).toMatchObject({ name: "g", mode: 0o600 });
    await fsys.remove("a/g");
    await expect(fsys.stat("a/g")).rejects.toThrow("a/g: 'g' file not found");
    expect((await fsys.stat("a")).mode).toBe((DM.DIR | 0o755) >>> 0);
  });

  it("reads a file larger than many iounits with reads in flight, and writes it in pieces", async () => {
    harness = (await serve(new Ramfs())) as Harness<unknown>;
    const client = await harness.client(4096 + 24);
    const fsys = await client.attach({ uname: "glenda" });
    const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 251));
    expect(await fsys.writeFile("big", data)).toBe(data.length);
    expect((await fsys.readFile("big")).equals(data)).toBe(true);
  });

  it("walks paths deeper than 16 names by chaining walks", async () => {
    const { fsys } = await ramfs();
    const names = Array.from({ length: 40 }, (_, i) => `d${i}`);
    for (let i = 1; i <= names.length; i++) await fsys.mkdir(names.slice(0, i).join("/"));
    const deep = `${names.join("/")}/leaf`;
    await fsys.writeFile(deep, "deep");
    expect((await fsys.readFile(deep)).toString()).toBe("deep");
    await expect(fsys.stat(`${names.slice(0, 20).join("/")}/nope/x`)).rejects.toThrow(
      "'nope' file not found",
    );
    await eventually(() => harness!.server.stats().fids === 1);
  });

  it("flushes a request whose signal aborts, and reuses its tag only after Rflush", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    const block = await fsys.open("block");
    const ac = new AbortController();
    const read = block.read(0, 10, ac.signal);
    await eventually(() => fs.blockedReads.size === 1);
    ac.abort();
    await expect(read).rejects.toThrow(/abort/i);
    await eventually(() => fs.aborted.length === 1);
    expect(fs.aborted).toEqual(["flushed"]);
    expect((await fsys.readFile("hello")).toString()).toBe("hello, world\n");
    await eventually(() => harness!.server.stats().requests === 0);
  });

  it("sends nothing for a request aborted while it waited for a tag, and goes on serving", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    const block = await fsys.open("block");
    const ac = new AbortController();
    // Aborted in the same tick: the request is still waiting for its tag.
    const read = block.read(0, 10, ac.signal);
    ac.abort();
    await expect(read).rejects.toThrow(/abort/i);
    expect((await fsys.readFile("hello")).toString()).toBe("hello, world\n");
    expect(fs.blockedReads.size).toBe(0);
    await block.close();
    await eventually(() => harness!.server.stats().requests === 0);
  });

  it("streams a file that blocks, chunk by chunk, until aborted", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    const writer = await fsys.open("pipe", OWRITE);
    const ac = new AbortController();
    const got: string[] = [];
    const reading = (async () => {
      for await (const chunk of fsys.stream("pipe", { signal: ac.signal })) {
        got.push(chunk.toString());
        if (got.length === 3) ac.abort();
      }
    })();
    for (const word of ["one", "two", "three"]) await writer.write(word);
    await expect(reading).rejects.toThrow(/abort/i);
    expect(got).toEqual(["one", "two", "three"]);
  });

  it("cleans paths lexically: '..' never leaves the tree, and the root cannot be removed", async () => {
    const { fsys } = await ramfs();
    await fsys.mkdir("sub");
    await fsys.writeFile("top", "at the root");
    expect((await fsys.readFile("sub/../top")).toString()).toBe("at the root");
    expect((await fsys.readFile("../../top")).toString()).toBe("at the root");
    expect((await fsys.stat("sub/..")).qid.path).toBe(fsys.rootQid.path);
    await expect(fsys.remove("/sub/..")).rejects.toThrow("cannot remove the root");
    expect((await fsys.readdir("/")).map((s) => s.name).sort()).toEqual(["sub", "top"]);
  });

  it("leaves the server no fid when it ends: the root clunked, then every forgotten fid answered", async () => {
    const { client, fsys } = await ramfs();
    await fsys.stat("/");
    await fsys.readFile("nope").catch(() => {});
    await fsys.close();
    await client.end();
    await eventually(() => harness!.server.stats().fids === 0);
  });

  it("reports the server's error text with the path", async () => {
    const { fsys } = await ramfs();
    const err = await fsys.open("nope", OREAD).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NinepRemoteError);
    expect(err).toMatchObject({ ename: "'nope' file not found", path: "nope", request: "Twalk" });
  });

  it("fails every pending request when the connection drops", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    const block = await fsys.open("block");
    const reads = [block.read(0), block.read(0)];
    await eventually(() => fs.blockedReads.size === 2);
    await harness.server.close();
    for (const r of reads) await expect(r).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(fsys.stat("hello")).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("dials nothing with a clear error", async () => {
    await expect(NinepClient.dial("unix!/nonexistent/ninep.sock")).rejects.toThrow(
      /dial \/nonexistent\/ninep.sock: .*ENOENT/,
    );
  });
});
