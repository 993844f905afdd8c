import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workDirectory } from "../__fixtures__/work-directory.js";
import { findFiles } from "./find-files.js";

let w: ReturnType<typeof workDirectory>;
beforeEach(() => {
  w = workDirectory("toolsrv-find-files-");
});
afterEach(() => w.remove());

const filesOf = async (...args: Parameters<typeof findFiles>) => (await findFiles(...args)).files;

describe("findFiles", () => {
  it("matches globs against paths relative to the root, dot files included, sorted", async () => {
    w.files("src/a.ts", "src/lib/b.ts", "src/lib/c.js", ".github/ci.yml", "README.md");
    expect(await filesOf(w.root, "src/**/*.ts")).toEqual(["src/a.ts", "src/lib/b.ts"]);
    expect(await filesOf(join(w.root, "src/lib"), "*.{ts,js}")).toEqual(["b.ts", "c.js"]);
    expect(await filesOf(w.root, "**/*")).toEqual([
      ".github/ci.yml",
      "README.md",
      "src/a.ts",
      "src/lib/b.ts",
      "src/lib/c.js",
    ]);
    expect(await filesOf(w.root, "src/?.[jt]s")).toEqual(["src/a.ts"]);
    // A pattern naming a directory matches no file, rather than the files in it.
    expect(await filesOf(w.root, "src")).toEqual([]);
  });

  it("honours .gitignore files, root and nested, each relative to its directory, with ! re-including", async () => {
    w.files(
      [".gitignore", "*.log\nbuild/\n/only-root.txt\n"],
      "app.log",
      "build/out.js",
      "only-root.txt",
      "keep.ts",
      ["pkg/.gitignore", "!important.log\ngenerated/\n"],
      "pkg/debug.log",
      "pkg/important.log",
      "pkg/only-root.txt",
      "pkg/generated/x.ts",
      "pkg/build/out.js",
      "other/generated/y.ts",
    );
    expect(await filesOf(w.root, "**/*")).toEqual([
      ".gitignore",
      "keep.ts",
      "other/generated/y.ts",
      "pkg/.gitignore",
      "pkg/important.log",
      "pkg/only-root.txt",
    ]);
  });

  it("lets a deeper file re-include what a shallower one excludes, but nothing inside an excluded directory", async () => {
    w.files(
      [".gitignore", "vendor/\ndocs/\n"],
      ["pkg/.gitignore", "!vendor/\n"],
      "pkg/vendor/lib.ts",
      "vendor/lib.ts",
      // git never reads a rule file in an excluded directory, so this cannot re-include anything.
      ["docs/.gitignore", "!*\n"],
      "docs/guide.md",
    );
    expect(await filesOf(w.root, "**/*.{ts,md}")).toEqual(["pkg/vendor/lib.ts"]);
  });

  it("honours .ignore files too, over the .gitignore beside them", async () => {
    w.files(
      [".gitignore", "secret.txt\n"],
      [".ignore", "!secret.txt\nfixtures/\n"],
      "secret.txt",
      "fixtures/big.json",
    );
    expect(await filesOf(w.root, "**/*.{txt,json}")).toEqual(["secret.txt"]);
  });

  it("skips node_modules, .git, .hg and .svn; with noIgnore, everything but version control", async () => {
    w.files(
      [".gitignore", "*.log\n"],
      "index.ts",
      "debug.log",
      "node_modules/dep/index.ts",
      "pkg/node_modules/dep/index.ts",
      ".git/HEAD",
      ".git/hooks/pre-commit.ts",
      ".hg/store.ts",
      ".svn/entries.ts",
    );
    expect(await filesOf(w.root, "**/*.{ts,log}")).toEqual(["index.ts"]);
    expect(await filesOf(w.root, "**/*.{ts,log}", { noIgnore: true })).toEqual([
      "debug.log",
      "index.ts",
      "node_modules/dep/index.ts",
      "pkg/node_modules/dep/index.ts",
    ]);
  });

  it("applies the rule files above the root up to the repository's top, unless they exclude the root", async () => {
    mkdirSync(join(w.root, ".git"));
    w.files(
      [".gitignore", "dist/\n*.tmp\n"],
      ["apps/.gitignore", "cache/\n"],
      "apps/web/src/main.ts",
      "apps/web/dist/main.js",
      "apps/web/cache/x.ts",
      "apps/web/notes.tmp",
      "apps/web/dist/sub/deep.js",
      "apps/web/dist/sub/scratch.tmp",
    );
    expect(await filesOf(join(w.root, "apps/web"), "**/*")).toEqual(["src/main.ts"]);
    // Named outright, an ignored directory is searched, as if outside the repository.
    expect(await filesOf(join(w.root, "apps/web/dist"), "**/*")).toEqual([
      "main.js",
      "sub/deep.js",
      "sub/scratch.tmp",
    ]);
  });

  it("reads no rule file above the root outside a repository", async () => {
    w.files([".gitignore", "*.ts\n"], "inner/a.ts");
    expect(await filesOf(join(w.root, "inner"), "**/*")).toEqual(["a.ts"]);
  });

  it("neither lists nor follows symbolic links, so a loop ends and the walk stays in the tree", async () => {
    w.files("tree/a.ts", "outside/secret.ts");
    symlinkSync(join(w.root, "tree"), join(w.root, "tree/loop"));
    symlinkSync("..", join(w.root, "tree/up"));
    symlinkSync(join(w.root, "outside"), join(w.root, "tree/out"));
    symlinkSync(join(w.root, "outside/secret.ts"), join(w.root, "tree/link.ts"));
    expect(await filesOf(join(w.root, "tree"), "**/*")).toEqual(["a.ts"]);
  }, 10_000);

  it("stops reading directories past maxEntries, and says the list may be incomplete", async () => {
    w.files("a/1.ts", "a/2.ts", "b/3.ts", "b/4.ts", "c/5.ts");
    expect(await findFiles(w.root, "**/*.ts")).toEqual({
      files: ["a/1.ts", "a/2.ts", "b/3.ts", "b/4.ts", "c/5.ts"],
      truncated: false,
    });
    const partial = await findFiles(w.root, "**/*.ts", { maxEntries: 4 });
    expect(partial.truncated).toBe(true);
    expect(partial.files.length).toBeLessThan(5);
  });

  it("refuses a pattern that leaves the directory", async () => {
    await expect(findFiles(w.root, "../**/*")).rejects.toThrow(/leaves the directory/);
    await expect(findFiles(w.root, "/etc/*")).rejects.toThrow(/leaves the directory/);
  });
});
