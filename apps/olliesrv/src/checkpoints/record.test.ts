import {
  appendFileSync,
  chmodSync,
  existsSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, shadowCounts, shadowGit, write } from "./__fixtures__/trees.js";
import { gitCommandsRun } from "./git.js";
import { ShadowRepo } from "./shadow-repo.js";

const scratch = new Scratch();
afterEach(() => scratch.removeAll());

async function openRepo(directory = scratch.dir("ckpt-dir-")) {
  const dataDir = scratch.dir("ckpt-data-");
  return { directory, dataDir, repo: await ShadowRepo.open({ dataDir, directory }) };
}

describe("record", () => {
  it("keeps the shadow repository under the data directory, named for the directory's realpath", async () => {
    const { directory, dataDir, repo } = await openRepo();
    expect(repo.gitDir.startsWith(join(dataDir, "checkpoints"))).toBe(true);
    expect(readFileSync(join(repo.gitDir, "directory"), "utf8")).toBe(`${directory}\n`);
    const link = join(scratch.dir("ckpt-link-"), "to-dir");
    symlinkSync(directory, link);
    const again = await ShadowRepo.open({ dataDir, directory: link });
    expect(again.gitDir).toBe(repo.gitDir);
    expect(again.directory).toBe(directory);
    expect(existsSync(join(directory, ".git"))).toBe(false);
  });

  it("records what changed since the owner's previous checkpoint, with line counts", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "one\ntwo\n", "src/b.ts": "export {};\n", "gone.txt": "x\n" });
    const first = await repo.record("s1/main", { turn: 1 });
    expect(first.created).toBe(true);
    if (!first.created) return;
    expect(first.checkpoint).toMatchObject({
      n: 1,
      owner: "s1/main",
      kind: "turn",
      turn: 1,
      files: [],
      noted: [],
    });
    expect(first.checkpoint.commit).toMatch(/^[0-9a-f]{40}$/);

    write(directory, {
      "a.txt": "one\nTWO\nthree\n",
      "bin.dat": Buffer.from([0, 1, 2, 255]),
      link: { link: "a.txt" },
    });
    rmSync(join(directory, "gone.txt"));
    chmodSync(join(directory, "src/b.ts"), 0o755);
    const second = await repo.record("s1/main", { turn: 2, label: "second" });
    expect(second.created && second.checkpoint).toMatchObject({ n: 2, turn: 2, label: "second" });
    expect(second.created && second.checkpoint.files).toEqual([
      { path: "a.txt", change: "modified", added: 2, deleted: 1 },
      { path: "bin.dat", change: "added", added: null, deleted: null },
      { path: "gone.txt", change: "deleted", added: 0, deleted: 1 },
      { path: "link", change: "added", added: 1, deleted: 0 },
      { path: "src/b.ts", change: "modified", added: 0, deleted: 0 },
    ]);
    const tree = await shadowGit(repo, ["ls-tree", "-r", "refs/ollie/s1%2Fmain/2"]);
    expect(tree).toMatch(/^120000 blob \S+\tlink$/m);
    expect(tree).toMatch(/^100755 blob \S+\tsrc\/b\.ts$/m);
    expect((await repo.list("s1/main")).map((c) => [c.n, c.kind, c.files.length])).toEqual([
      [1, "turn", 0],
      [2, "turn", 5],
    ]);
  });

  it("records nothing when the tree is as the owner's latest checkpoint has it", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "a\n", "d/b.txt": "b\n" });
    const first = await repo.record("s1/main");
    const before = await shadowCounts(repo);
    const head = readFileSync(join(repo.gitDir, "HEAD"), "utf8");

    await repo.idle();
    const commands = gitCommandsRun();
    const same = await repo.record("s1/main");
    expect(same).toEqual({ created: false, sameAs: first.created && first.checkpoint, noted: [] });
    // The fast path: one `git status`, nothing staged, no tree written.
    expect(gitCommandsRun() - commands).toBe(1);
    expect(await shadowCounts(repo)).toEqual(before);
    expect(readFileSync(join(repo.gitDir, "HEAD"), "utf8")).toBe(head);

    // A file written again with the same bytes is no change either.
    write(directory, { "a.txt": "a\n" });
    expect((await repo.record("s1/main")).created).toBe(false);
    expect(await shadowCounts(repo)).toEqual(before);

    // A daemon started afresh finds the same (its cache of the index's tree is empty).
    const reopened = await ShadowRepo.open({ dataDir: join(repo.gitDir, "../.."), directory });
    expect((await reopened.record("s1/main")).created).toBe(false);
    expect(await shadowCounts(repo)).toEqual(before);
  });

  it("writes the files of a large checkpoint into one pack, and a few changed ones as loose objects", async () => {
    const { directory, repo } = await openRepo();
    write(
      directory,
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`d${i % 10}/f${i}.ts`, `${i}\n`])),
    );
    await repo.record("s/main");
    const objects = async () =>
      Object.fromEntries(
        (await shadowGit(repo, ["count-objects", "-v"])).split("\n").map((line) => line.split(": ")),
      ) as Record<string, string>;
    const [major, minor] = (await shadowGit(repo, ["--version"])).match(/\d+/g)!.map(Number);
    const packs = major! > 2 || (major === 2 && minor! >= 37);
    // 200 blobs in a pack; the 11 trees (the top and d0…d9) and the commit loose.
    expect(await objects()).toMatchObject(packs ? { packs: "1", count: "12" } : { packs: "0", count: "212" });
    write(directory, { "d0/f0.ts": "changed\n" });
    await repo.record("s/main");
    // One blob, two trees, a commit: loose.
    expect(await objects()).toMatchObject(packs ? { packs: "1", count: "16" } : { packs: "0", count: "216" });
  });

  it("numbers each owner's checkpoints apart in one shared repository", async () => {
    const { directory, dataDir, repo } = await openRepo();
    const other = await ShadowRepo.open({ dataDir, directory });
    write(directory, { "a.txt": "1\n" });
    await repo.record("s1/main");
    write(directory, { "a.txt": "2\n" });
    await repo.record("s1/main");
    // Another session's agent: its first checkpoint, though the tree is the one s1/main just recorded.
    const theirs = await other.record("s2/main");
    expect(theirs.created && theirs.checkpoint.n).toBe(1);
    write(directory, { "a.txt": "3\n" });
    const mine = await repo.record("s1/main");
    expect(mine.created && mine.checkpoint.files).toEqual([
      { path: "a.txt", change: "modified", added: 1, deleted: 1 },
    ]);
    expect((await repo.list("s1/main")).map((c) => c.n)).toEqual([1, 2, 3]);
    expect((await other.list("s2/main")).map((c) => c.n)).toEqual([1]);
    expect(await repo.list("nobody/main")).toEqual([]);
    const refs = await shadowGit(repo, ["for-each-ref", "--format=%(refname)", "refs/ollie"]);
    expect(refs.split("\n").sort()).toEqual([
      "refs/ollie/s1%2Fmain/1",
      "refs/ollie/s1%2Fmain/2",
      "refs/ollie/s1%2Fmain/3",
      "refs/ollie/s2%2Fmain/1",
    ]);
  });

  it("records names with newlines, tabs, quotes and bytes that are not UTF-8, and rewinds them", async () => {
    const { directory, repo } = await openRepo();
    const latin1 = Buffer.concat([Buffer.from(`${directory}/caf`), Buffer.from([0xe9]), Buffer.from(".txt")]);
    write(directory, { "line\nbreak.txt": "1\n", 'tab\tand "quote".txt': "1\n", "ünï.txt": "1\n" });
    writeFileSync(latin1, "1\n");
    await repo.record("s/main");
    write(directory, { "line\nbreak.txt": "2\n", 'tab\tand "quote".txt': "2\n", "ünï.txt": "2\n" });
    writeFileSync(latin1, "2\n");
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint.files.map((f) => f.path)).toEqual([
      "caf\ufffd.txt",
      "line\nbreak.txt",
      'tab\tand "quote".txt',
      "ünï.txt",
    ]);
    await repo.rewind("s/main", 1);
    expect(readFileSync(latin1, "utf8")).toBe("1\n");
    expect(readFileSync(join(directory, "line\nbreak.txt"), "utf8")).toBe("1\n");
    expect(readFileSync(join(directory, "ünï.txt"), "utf8")).toBe("1\n");
  });

  it("gives an owner with any characters a ref git accepts", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "1\n" });
    for (const owner of ["../x", "a b/.lock", "ü/~^:?*[", "HEAD"]) {
      const recorded = await repo.record(owner);
      expect(recorded.created && recorded.checkpoint.owner).toBe(owner);
      expect((await repo.list(owner)).length).toBe(1);
    }
    await expect(repo.record("")).rejects.toThrow(/may not be empty/);
  });

  it("reads an owner's log past a line cut short, and numbers on from the last whole one", async () => {
    const { directory, repo } = await openRepo();
    write(directory, { "a.txt": "1\n" });
    await repo.record("s/main");
    appendFileSync(join(repo.gitDir, "owners", "s%2Fmain.jsonl"), '{"n":2,"owner":"s/ma');
    write(directory, { "a.txt": "2\n" });
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint.n).toBe(2);
    expect((await repo.list("s/main")).map((c) => c.n)).toEqual([1, 2]);
  });
});
