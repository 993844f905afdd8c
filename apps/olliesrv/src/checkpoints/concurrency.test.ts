import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, write } from "./__fixtures__/trees.js";
import { CheckpointLocked } from "./errors.js";
import { SerialQueue } from "./serial-queue.js";
import { ShadowRepo } from "./shadow-repo.js";

const scratch = new Scratch();
afterEach(() => scratch.removeAll());

describe("operations at once", () => {
  it("serializes records of several agents, through several ShadowRepos of one directory", async () => {
    const directory = scratch.dir("ckpt-dir-");
    const dataDir = scratch.dir("ckpt-data-");
    write(
      directory,
      Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`d${i % 20}/f${i}.txt`, `file ${i}\n`])),
    );
    const repos = await Promise.all(Array.from({ length: 3 }, () => ShadowRepo.open({ dataDir, directory })));
    const owners = ["s1/main", "s2/main", "s3/main", "s1/helper", "s2/helper", "s3/helper"];
    const records = await Promise.all(owners.map((owner, i) => repos[i % repos.length]!.record(owner)));
    // Each owner's first checkpoint, all of the same tree; no lock was fought over.
    expect(records.map((r) => r.created && r.checkpoint.n)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(records.map((r) => r.created && r.checkpoint.tree)).size).toBe(1);

    // One owner's records at once take the numbers in the order they were asked for.
    write(directory, { "d0/f0.txt": "changed\n" });
    const again = await Promise.all([repos[0]!.record("s1/main"), repos[1]!.record("s1/main")]);
    expect(again.map((r) => (r.created ? `new ${r.checkpoint.n}` : `same as ${r.sameAs.n}`))).toEqual([
      "new 2",
      "same as 2",
    ]);
    expect((await repos[2]!.list("s1/main")).map((c) => c.n)).toEqual([1, 2]);

    // idle() waits for what was asked before it, through any of them.
    write(directory, { "d0/f0.txt": "changed again\n" });
    let recorded = false;
    const third = repos[0]!.record("s1/main").then(() => {
      recorded = true;
    });
    await repos[1]!.idle();
    expect(recorded).toBe(true);
    await third;
  });

  it("says which lock another process holds, and works again once it is gone", async () => {
    const directory = scratch.dir("ckpt-dir-");
    write(directory, { "a.txt": "a\n" });
    const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
    await repo.record("s/main");
    write(directory, { "a.txt": "b\n" });
    const lock = join(repo.gitDir, "index.lock");
    writeFileSync(lock, "");
    const failed = await repo.record("s/main").catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(CheckpointLocked);
    expect(failed).toMatchObject({ lockFile: lock, directory });
    rmSync(lock);
    const recorded = await repo.record("s/main");
    expect(recorded.created && recorded.checkpoint.files).toEqual([
      { path: "a.txt", change: "modified", added: 1, deleted: 1 },
    ]);
  });
});

describe("SerialQueue", () => {
  it("runs one task at a time in order, a failure stopping none of the others", async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = queue.run(async () => {
      events.push("first starts");
      await gate;
      events.push("first ends");
      throw new Error("first failed");
    });
    const second = queue.run(async () => {
      events.push("second runs");
      return 2;
    });
    await Promise.resolve();
    expect(events).toEqual(["first starts"]);
    expect(queue.pending).toBe(2);
    release();
    await expect(first).rejects.toThrow("first failed");
    expect(await second).toBe(2);
    expect(events).toEqual(["first starts", "first ends", "second runs"]);
    await Promise.resolve();
    expect(queue.pending).toBe(0);
  });
});
