import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, snapshot, write } from "./__fixtures__/trees.js";
import { UnknownCheckpoint } from "./errors.js";
import { ShadowRepo } from "./shadow-repo.js";

const scratch = new Scratch();
afterEach(() => scratch.removeAll());

async function openRepo() {
  const directory = scratch.dir("ckpt-dir-");
  const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
  return { directory, repo };
}

/** Bytes of every value, so that a restored file is checked byte for byte. */
const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** A tree with some of everything: text, binary, an executable, links to a file and to a directory. */
function plant(directory: string) {
  write(directory, {
    "README.md": "# title\r\nwindows line\r\nunix line\n",
    "bin/tool.sh": "#!/bin/sh\necho hi\n",
    "data/blob.bin": everyByte,
    "src/a.ts": "export const a = 1;\n",
    "src/deep/b.ts": "export const b = 2;\n",
    "link-to-file": { link: "src/a.ts" },
    "link-to-dir": { link: "src" },
    dangling: { link: "nowhere/at/all" },
    "becomes-dir": "a file now\n",
    "dir-becomes-file/x.txt": "x\n",
  });
  chmodSync(join(directory, "bin/tool.sh"), 0o755);
}

/** Changes of every kind to what `plant` made. */
function churn(directory: string) {
  rmSync(join(directory, "becomes-dir"));
  rmSync(join(directory, "dir-becomes-file"), { recursive: true });
  write(directory, {
    "README.md": "rewritten\n",
    "data/blob.bin": Buffer.concat([everyByte, everyByte]),
    "new/nested/file.txt": "new\n",
    "link-to-file": { link: "README.md" },
    "src/a.ts": { link: "/etc/passwd" },
    "becomes-dir/inside.txt": "inside\n",
    "dir-becomes-file": "a file now\n",
  });
  chmodSync(join(directory, "bin/tool.sh"), 0o644);
  rmSync(join(directory, "src/deep"), { recursive: true });
  rmSync(join(directory, "dangling"));
}

describe("rewind", () => {
  it("makes the directory what the checkpoint recorded: bytes, modes, links, files made and removed", async () => {
    const { directory, repo } = await openRepo();
    plant(directory);
    const at1 = snapshot(directory);
    const first = await repo.record("s/main");
    expect(first.created).toBe(true);
    churn(directory);
    const changed = snapshot(directory);
    expect(changed).not.toEqual(at1);

    const rewound = await repo.rewind("s/main", 1);
    expect(snapshot(directory)).toEqual(at1);
    expect(rewound.to.n).toBe(1);
    expect(rewound.before).toMatchObject({ n: 2, kind: "before rewind", rewindTo: 1 });
    expect(rewound.untouched).toEqual([]);
    expect(rewound.files.map((f) => `${f.change} ${f.path}`).sort()).toEqual([
      "added becomes-dir",
      "added dangling",
      "added dir-becomes-file/x.txt",
      "added src/deep/b.ts",
      "deleted becomes-dir/inside.txt",
      "deleted dir-becomes-file",
      "deleted new/nested/file.txt",
      "modified README.md",
      "modified bin/tool.sh",
      "modified data/blob.bin",
      "modified link-to-file",
      "type changed src/a.ts",
    ]);
    // No directory is left behind empty by the files it removed.
    expect(Object.keys(snapshot(directory)).filter((p) => p.startsWith("new"))).toEqual([]);

    // The rewind is undone by rewinding to the state it replaced.
    const undone = await repo.rewind("s/main", 2);
    expect(snapshot(directory)).toEqual(changed);
    expect(undone.before).toMatchObject({ n: 3, kind: "before rewind", rewindTo: 2 });
    expect((await repo.list("s/main")).map((c) => `${c.n} ${c.kind}`)).toEqual([
      "1 turn",
      "2 before rewind",
      "3 before rewind",
    ]);
  });

  it("rewinds to a checkpoint before others, and records a turn after it as the next checkpoint", async () => {
    const { directory, repo } = await openRepo();
    const states: ReturnType<typeof snapshot>[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      write(directory, { [`turn${turn}.txt`]: `${turn}\n`, "shared.txt": `turn ${turn}\n` });
      states.push(snapshot(directory));
      await repo.record("s/main", { turn });
    }
    await repo.rewind("s/main", 2);
    expect(snapshot(directory)).toEqual(states[1]);
    write(directory, { "after.txt": "after the rewind\n" });
    const next = await repo.record("s/main", { turn: 5 });
    expect(next.created && next.checkpoint).toMatchObject({
      n: 6,
      files: [
        { path: "after.txt", change: "added" },
        { path: "shared.txt", change: "modified" },
        { path: "turn3.txt", change: "deleted" },
        { path: "turn4.txt", change: "deleted" },
      ],
    });
  });

  it("does nothing, and records nothing, when the directory already is the checkpoint", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "a\n" });
    await repo.record("s/main");
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound).toMatchObject({ before: undefined, files: [], untouched: [] });
    expect((await repo.list("s/main")).length).toBe(1);
  });

  it("refuses a checkpoint the owner does not have", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "a\n" });
    await repo.record("s/main");
    await expect(repo.rewind("s/main", 2)).rejects.toBeInstanceOf(UnknownCheckpoint);
    await expect(repo.rewind("s/other", 1)).rejects.toThrow(/s\/other has no checkpoint 1/);
  });

  it("leaves an untracked file where the checkpoint had a directory's files, and says so", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { ".gitignore": "*.log\n", "logs/keep.txt": "kept\n" });
    await repo.record("s/main");
    rmSync(join(directory, "logs"), { recursive: true });
    // An ignored file where the checkpoint has a directory: the rewind would have to delete it.
    writeFileSync(join(directory, "logs"), "");
    write(directory, { ".gitignore": "*.log\nlogs\n" });
    const planted = snapshot(directory).logs;
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound.untouched).toEqual(["logs/keep.txt"]);
    expect(snapshot(directory).logs).toEqual(planted);
    expect(planted).toMatchObject({ kind: "file", content: "" });
  });

  it("leaves a directory holding ignored files where the checkpoint had a file", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { ".gitignore": "*.log\n", thing: "file\n" });
    await repo.record("s/main");
    rmSync(join(directory, "thing"));
    write(directory, { "thing/a.txt": "tracked\n", "thing/deep/x.log": "ignored\n" });
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound.untouched).toEqual(["thing"]);
    expect(Object.keys(snapshot(directory))).toEqual([
      ".gitignore",
      "thing",
      "thing/deep",
      "thing/deep/x.log",
    ]);
  });

  it("removes what a new directory held, and the directory, when the checkpoint had a file there", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { thing: "file\n" });
    const at1 = snapshot(directory);
    await repo.record("s/main");
    rmSync(join(directory, "thing"));
    mkdirSync(join(directory, "thing/empty/deeper"), { recursive: true });
    write(directory, { "thing/a/b.txt": "b\n" });
    await repo.rewind("s/main", 1);
    expect(snapshot(directory)).toEqual(at1);
  });
});
