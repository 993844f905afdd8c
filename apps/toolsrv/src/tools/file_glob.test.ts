import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workDirectory } from "./__fixtures__/work-directory.js";

const w = workDirectory("toolsrv-file-glob-");
afterAll(() => w.remove());

describe("file_glob", () => {
  it("skips what .gitignore files exclude, root and nested, node_modules and .git; no_ignore lists all but version control", async () => {
    w.files(
      [".gitignore", "*.log\ndist/\n"],
      "src/index.ts",
      "src/trace.log",
      "dist/index.js",
      ["src/.gitignore", "!keep.log\n/generated/\n"],
      "src/keep.log",
      "src/generated/types.ts",
      "node_modules/dep/index.js",
      ".git/HEAD",
    );
    expect((await w.run("file_glob", { pattern: "**/*" })).out).toBe(
      ".gitignore\nsrc/.gitignore\nsrc/index.ts\nsrc/keep.log\n",
    );
    expect((await w.run("file_glob", { pattern: "**/*.{ts,js,log}", no_ignore: true })).out).toBe(
      "dist/index.js\nnode_modules/dep/index.js\nsrc/generated/types.ts\nsrc/index.ts\nsrc/keep.log\nsrc/trace.log\n",
    );
  });

  it("keeps its limit and its answers", async () => {
    w.files(...Array.from({ length: 1001 }, (_, i) => `many/f${String(i).padStart(4, "0")}.txt`));
    const { out } = await w.run("file_glob", { pattern: "*.txt", path: "many" });
    const lines = out.split("\n");
    expect(lines.slice(0, 2)).toEqual(["f0000.txt", "f0001.txt"]);
    expect(lines.slice(1000)).toEqual(["[more than 1000 matches: narrow the pattern]", ""]);
    expect((await w.run("file_glob", { pattern: "*.rs" })).out).toBe(`no files under ${w.root} match *.rs\n`);
    expect((await w.run("file_glob", { pattern: "*", path: "src/index.ts" })).err).toMatch(
      /is not a directory/,
    );
    expect((await w.run("file_glob", { pattern: "../*" })).err).toMatch(/leaves the directory/);
  });

  it("ends on a symbolic link loop, listing nothing through links", async () => {
    mkdirSync(join(w.root, "loop/inner"), { recursive: true });
    w.files("loop/inner/a.ts");
    symlinkSync("..", join(w.root, "loop/inner/up"));
    symlinkSync(join(w.root, "loop"), join(w.root, "loop/inner/again"));
    expect(await w.run("file_glob", { pattern: "**/*", path: "loop" })).toMatchObject({
      out: "inner/a.ts\n",
      code: 0,
      timedOut: false,
    });
  });
});
