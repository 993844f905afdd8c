import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, shadowGit, snapshot, treeHash, userGit, write } from "./__fixtures__/trees.js";
import { ShadowRepo } from "./shadow-repo.js";
import type { CheckpointLimits } from "./types.js";

const scratch = new Scratch();
afterEach(() => scratch.removeAll());

async function openRepo(limits?: Partial<CheckpointLimits>) {
  const directory = scratch.dir("ckpt-dir-");
  const repo = await ShadowRepo.open({
    dataDir: scratch.dir("ckpt-data-"),
    directory,
    ...(limits && { limits }),
  });
  return { directory, repo };
}

/** The paths checkpoint `n` of `owner` holds. */
async function stored(repo: ShadowRepo, owner: string, n: number): Promise<string[]> {
  const ref = `refs/ollie/${owner.replace("/", "%2F")}/${n}`;
  return (await shadowGit(repo, ["ls-tree", "-r", "--name-only", ref])).split("\n").filter(Boolean);
}

describe("what checkpoints leave out", () => {
  it("never stores ignored files, and a rewind leaves them as they are", async () => {
    const { directory, repo } = await openRepo();
    write(directory, {
      ".gitignore": "*.log\nbuild/\n",
      "src/.gitignore": "generated.ts\n",
      "src/main.ts": "main\n",
      "src/generated.ts": "generated 1\n",
      "build/out.js": "out 1\n",
      "app.log": "log 1\n",
    });
    await repo.record("s/main");
    expect(await stored(repo, "s/main", 1)).toEqual([".gitignore", "src/.gitignore", "src/main.ts"]);

    write(directory, {
      "src/main.ts": "main changed\n",
      "src/generated.ts": "generated 2\n",
      "build/out.js": "out 2\n",
      "build/new.js": "new\n",
      "app.log": "log 2\n",
      "other.log": "other\n",
    });
    const ignoredBefore = snapshot(directory);
    await repo.rewind("s/main", 1);
    const after = snapshot(directory);
    expect(after["src/main.ts"]?.content).toBe(Buffer.from("main\n").toString("hex"));
    for (const path of ["src/generated.ts", "build/out.js", "build/new.js", "app.log", "other.log"])
      expect(after[path]).toEqual(ignoredBefore[path]);
  });

  it("stops storing a file a changed .gitignore now ignores", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "a\n", "cache/data.bin": "data 1\n" });
    await repo.record("s/main");
    write(directory, { ".gitignore": "cache/\n", "cache/data.bin": "data 2\n" });
    const second = await repo.record("s/main");
    expect(await stored(repo, "s/main", 2)).toEqual([".gitignore", "a.txt"]);
    expect(second.created && second.checkpoint.files.map((f) => `${f.change} ${f.path}`)).toEqual([
      "added .gitignore",
      "deleted cache/data.bin",
    ]);
    // Rewinding to the first checkpoint, which has the file, leaves the ignored file as it is now.
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound.untouched).toEqual(["cache/data.bin"]);
    expect(snapshot(directory)["cache/data.bin"]?.content).toBe(Buffer.from("data 2\n").toString("hex"));
  });

  it("notes a file over the per-file cap, stores binaries under it, and a rewind leaves the big one", async () => {
    const { directory, repo } = await openRepo({ maxFileBytes: 1000 });
    const binary = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37) % 256));
    write(directory, { "small.bin": binary, "big.bin": Buffer.alloc(1001, 7), "a.txt": "a\n" });
    const first = await repo.record("s/main");
    expect(first.created && first.checkpoint.noted).toEqual([
      { path: "big.bin", reason: "file-cap", size: 1001 },
    ]);
    expect(await stored(repo, "s/main", 1)).toEqual(["a.txt", "small.bin"]);

    write(directory, { "big.bin": Buffer.alloc(2000, 8), "small.bin": "changed\n", "a.txt": "b\n" });
    const bigNow = snapshot(directory)["big.bin"];
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound.before?.noted).toEqual([{ path: "big.bin", reason: "file-cap", size: 2000 }]);
    const after = snapshot(directory);
    expect(after["big.bin"]).toEqual(bigNow);
    expect(after["small.bin"]?.content).toBe(binary.toString("hex"));
  });

  it("takes a file that grew past the cap out of the checkpoint, and a rewind to that one keeps it", async () => {
    const { directory, repo } = await openRepo({ maxFileBytes: 100 });
    write(directory, { "grows.txt": "small\n" });
    await repo.record("s/main");
    write(directory, { "grows.txt": "x".repeat(101) });
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint.noted).toEqual([
      { path: "grows.txt", reason: "file-cap", size: 101 },
    ]);
    expect(await stored(repo, "s/main", 2)).toEqual([]);

    // Small again and stored; rewinding to checkpoint 2, which could not store it, leaves it.
    write(directory, { "grows.txt": "small again\n" });
    await repo.record("s/main");
    const rewound = await repo.rewind("s/main", 2);
    expect(rewound.untouched).toEqual(["grows.txt"]);
    expect(snapshot(directory)["grows.txt"]?.content).toBe(Buffer.from("small again\n").toString("hex"));
    // Checkpoint 1 had it small: a rewind there restores it.
    await repo.rewind("s/main", 1);
    expect(snapshot(directory)["grows.txt"]?.content).toBe(Buffer.from("small\n").toString("hex"));
  });

  it("stores at most the per-checkpoint cap of new bytes, and the rest in later checkpoints", async () => {
    const { directory, repo } = await openRepo({ maxCheckpointBytes: 250 });
    write(directory, {
      "a.txt": "a".repeat(100),
      "b.txt": "b".repeat(100),
      "c.txt": "c".repeat(100),
      d: "d",
    });
    const first = await repo.record("s/main");
    expect(first.created && first.checkpoint.noted).toEqual([
      { path: "c.txt", reason: "checkpoint-cap", size: 100 },
    ]);
    expect(await stored(repo, "s/main", 1)).toEqual(["a.txt", "b.txt", "d"]);
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint).toMatchObject({
      noted: [],
      files: [{ path: "c.txt", change: "added" }],
    });
  });

  it("leaves a repository nested in a subdirectory out, and a rewind leaves it as it is", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "top.txt": "top\n", "vendor/lib/code.c": "int x;\n" });
    await userGit(join(directory, "vendor/lib"), ["init", "-q"]);
    await userGit(join(directory, "vendor/lib"), ["add", "-A"]);
    await userGit(join(directory, "vendor/lib"), ["commit", "-qm", "lib"]);
    const first = await repo.record("s/main");
    expect(first.created && first.checkpoint.noted).toEqual([
      { path: "vendor/lib/", reason: "nested-repository" },
    ]);
    const tree = await shadowGit(repo, ["ls-tree", "-r", "refs/ollie/s%2Fmain/1"]);
    expect(tree).not.toMatch(/^160000/m);
    expect(tree).not.toContain("vendor");

    write(directory, {
      "top.txt": "changed\n",
      "vendor/lib/code.c": "int y;\n",
      "vendor/lib/new.c": "new\n",
    });
    const nested = treeHash(join(directory, "vendor/lib"));
    await repo.rewind("s/main", 1);
    expect(treeHash(join(directory, "vendor/lib"))).toBe(nested);
    expect(snapshot(directory)["top.txt"]?.content).toBe(Buffer.from("top\n").toString("hex"));
  });

  it("notes what git cannot store — a FIFO where a file was, a .git name in another case — and goes on", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { pipe: "a file first\n", "a.txt": "a\n" });
    await repo.record("s/main");
    rmSync(join(directory, "pipe"));
    await execa("mkfifo", [join(directory, "pipe")]);
    write(directory, { ".GIT": "not a repository\n", "sub/.Git/x": "x\n", "a.txt": "b\n" });
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint).toMatchObject({
      noted: [
        { path: ".GIT", reason: "unstorable-name" },
        { path: "pipe", reason: "special-file" },
        { path: "sub/.Git/x", reason: "unstorable-name" },
      ],
      files: [
        { path: "a.txt", change: "modified" },
        { path: "pipe", change: "deleted" },
      ],
    });
    await repo.rewind("s/main", 1);
    // The FIFO stays: checkpoint 1 had a file there, but the rewind does not replace what it cannot store.
    expect(snapshot(directory)).toMatchObject({
      "a.txt": { content: Buffer.from("a\n").toString("hex") },
      pipe: { kind: "other" },
    });
  });

  // Root reads everything: this runs where the tests run as another user.
  it.skipIf(process.getuid?.() === 0)("notes a file the daemon may not read, and goes on", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "a\n", "locked/inside.txt": "in\n", "secret.txt": "s\n" });
    await repo.record("s/main");
    write(directory, { "a.txt": "b\n", "locked/inside.txt": "changed\n", "secret.txt": "changed\n" });
    chmodSync(join(directory, "secret.txt"), 0o000);
    chmodSync(join(directory, "locked"), 0o600);
    try {
      const second = await repo.record("s/main");
      // git update-index fails on the file it cannot read: the engine notes it and stages the rest. What is
      // in a directory git cannot search keeps its last checkpoint (git sees no change there).
      expect(second.created && second.checkpoint).toMatchObject({
        files: [
          { path: "a.txt", change: "modified" },
          { path: "secret.txt", change: "deleted" },
        ],
        noted: [{ path: "secret.txt", reason: "unreadable" }],
      });
    } finally {
      chmodSync(join(directory, "secret.txt"), 0o644);
      chmodSync(join(directory, "locked"), 0o755);
    }
  });
});
