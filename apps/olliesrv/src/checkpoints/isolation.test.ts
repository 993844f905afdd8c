import { chmodSync, existsSync, mkdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, shadowGit, snapshot, treeHash, userGit, write } from "./__fixtures__/trees.js";
import { ShadowRepo } from "./shadow-repo.js";

const scratch = new Scratch();
const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
  scratch.removeAll();
});

describe("what checkpoints do not touch", () => {
  it("leaves the directory's own git repository as it was, uncommitted changes and all", async () => {
    const directory = scratch.dir("ckpt-user-repo-");
    write(directory, { "tracked.txt": "v1\n", "staged.txt": "s1\n", "src/code.ts": "code\n" });
    await userGit(directory, ["init", "-q"]);
    await userGit(directory, ["add", "-A"]);
    await userGit(directory, ["commit", "-qm", "first"]);
    write(directory, { "tracked.txt": "v2, uncommitted\n", "staged.txt": "s2\n", "untracked.txt": "u\n" });
    await userGit(directory, ["add", "staged.txt"]);
    const status = await userGit(directory, ["status", "--porcelain"]);
    expect(status).not.toBe("");
    const dotGit = treeHash(join(directory, ".git"));
    // A daemon started inside a git repository of its own has these set; none of them may reach git.
    process.env.GIT_DIR = join(directory, ".git");
    process.env.GIT_WORK_TREE = directory;
    process.env.GIT_INDEX_FILE = join(directory, ".git/index");
    process.env.GIT_OBJECT_DIRECTORY = join(directory, ".git/objects");

    const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
    await repo.record("s/main");
    write(directory, { "tracked.txt": "agent edit\n", "agent-new.txt": "new\n" });
    rmSync(join(directory, "src"), { recursive: true });
    await repo.record("s/main");
    await repo.rewind("s/main", 1);
    for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"])
      delete process.env[name];

    expect(treeHash(join(directory, ".git"))).toBe(dotGit);
    expect(await userGit(directory, ["status", "--porcelain"])).toBe(status);
    const shadowTree = await shadowGit(repo, ["ls-tree", "-r", "--name-only", "refs/ollie/s%2Fmain/1"]);
    expect(shadowTree.split("\n")).toEqual(["src/code.ts", "staged.txt", "tracked.txt", "untracked.txt"]);
  });

  it("stores and restores bytes as they are, whatever .gitattributes and the user's configuration say", async () => {
    const home = scratch.dir("ckpt-home-");
    const marker = join(home, "hook-ran");
    mkdirSync(join(home, "hooks"));
    for (const hook of [
      "reference-transaction",
      "post-checkout",
      "pre-commit",
      "post-commit",
      "post-index-change",
    ]) {
      writeFileSync(join(home, "hooks", hook), `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(join(home, "hooks", hook), 0o755);
    }
    const config = `[core]\n\tautocrlf = true\n\tsymlinks = false\n\tfilemode = false\n\thooksPath = ${home}/hooks\n`;
    writeFileSync(join(home, ".gitconfig"), config);
    process.env.HOME = home;
    process.env.GIT_CONFIG_GLOBAL = join(home, ".gitconfig");

    const directory = scratch.dir("ckpt-dir-");
    write(directory, {
      ".gitattributes":
        "* text=auto eol=crlf\n*.txt ident filter=upper\n*.enc working-tree-encoding=UTF-16\n",
      "mixed.txt": "$Id$\r\nlf\ncrlf\r\n",
      "utf16.enc": Buffer.from("\xff\xfeh\0i\0", "latin1"),
      "plain.md": "a\nb\n",
      link: { link: "plain.md" },
    });
    chmodSync(join(directory, "plain.md"), 0o755);
    const at1 = snapshot(directory);
    const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
    await repo.record("s/main");
    write(directory, { "mixed.txt": "other\n", "utf16.enc": "x", "plain.md": "c\n", link: "not a link" });
    await repo.rewind("s/main", 1);
    expect(snapshot(directory)).toEqual(at1);
    expect(existsSync(marker)).toBe(false);
  });

  it("records a link to outside the directory as a link, and does not write through one on rewind", async () => {
    const outside = scratch.dir("ckpt-outside-");
    write(outside, { "secret.txt": "outside\n", "src/a.ts": "outside's a\n" });
    const outsideBefore = treeHash(outside);
    const directory = scratch.dir("ckpt-dir-");
    write(directory, { "src/a.ts": "a\n", "src/b/c.ts": "c\n", out: { link: outside } });
    const at1 = snapshot(directory);
    const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
    await repo.record("s/main");
    const tree = await shadowGit(repo, ["ls-tree", "-r", "refs/ollie/s%2Fmain/1"]);
    expect(tree.split("\n").map((line) => line.split("\t")[1])).toEqual(["out", "src/a.ts", "src/b/c.ts"]);
    expect(tree).toMatch(/^120000 blob \S+\tout$/m);

    // A tool replaces the directory with a link to outside, with files of the same names there.
    rmSync(join(directory, "src"), { recursive: true });
    write(directory, { src: { link: outside } });
    await repo.rewind("s/main", 1);
    expect(treeHash(outside)).toBe(outsideBefore);
    expect(snapshot(directory)).toEqual(at1);

    // The same with the link ignored, so no checkpoint holds it: the rewind leaves it and all below it.
    rmSync(join(directory, "src"), { recursive: true });
    write(directory, { ".gitignore": "/src\n", src: { link: outside } });
    const rewound = await repo.rewind("s/main", 1);
    expect(rewound.untouched).toEqual(["src/a.ts", "src/b/c.ts"]);
    expect(treeHash(outside)).toBe(outsideBefore);
    expect(readlinkSync(join(directory, "src"))).toBe(outside);
  });

  it("leaves out its own data directory when that is inside the directory", async () => {
    const directory = scratch.dir("ckpt-home-dir-");
    write(directory, { "notes.txt": "n\n" });
    const repo = await ShadowRepo.open({ dataDir: join(directory, ".local/share/ollie"), directory });
    await repo.record("s/main");
    write(directory, { "notes.txt": "m\n" });
    const second = await repo.record("s/main");
    expect(second.created && second.checkpoint.files).toEqual([
      { path: "notes.txt", change: "modified", added: 1, deleted: 1 },
    ]);
    expect(await shadowGit(repo, ["ls-tree", "-r", "--name-only", "HEAD"])).toBe("notes.txt");
  });
});
