import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workDirectory } from "./__fixtures__/work-directory.js";

const w = workDirectory("toolsrv-file-grep-");
afterAll(() => w.remove());

describe("file_grep", () => {
  it("skips what .gitignore files exclude, root and nested, node_modules and .git; no_ignore searches all but version control", async () => {
    w.files(
      [".gitignore", "*.log\nbuild/\n"],
      ["app.ts", "// TODO: app\n"],
      ["debug.log", "TODO: log\n"],
      ["build/out.js", "// TODO: built\n"],
      ["lib/.gitignore", "!notes.log\n"],
      ["lib/notes.log", "TODO: notes\n"],
      ["node_modules/dep/index.js", "// TODO: dep\n"],
      [".git/config", "TODO: git\n"],
    );
    expect((await w.run("file_grep", { pattern: "TODO" })).out).toBe(
      "app.ts:1:// TODO: app\nlib/notes.log:1:TODO: notes\n",
    );
    expect((await w.run("file_grep", { pattern: "TODO", no_ignore: true })).out).toBe(
      "app.ts:1:// TODO: app\nbuild/out.js:1:// TODO: built\ndebug.log:1:TODO: log\nlib/notes.log:1:TODO: notes\nnode_modules/dep/index.js:1:// TODO: dep\n",
    );
    expect((await w.run("file_grep", { pattern: "TODO", glob: "**/*.log" })).out).toBe(
      "lib/notes.log:1:TODO: notes\n",
    );
  });

  it("searches a file named outright even if ignored, the glob applying to its name", async () => {
    expect((await w.run("file_grep", { pattern: "TODO", path: "debug.log" })).out).toBe(
      "debug.log:1:TODO: log\n",
    );
    expect((await w.run("file_grep", { pattern: "TODO", path: "debug.log", glob: "*.ts" })).out).toBe(
      "no matches for /TODO/\n",
    );
  });

  it("stops at 500 matches", async () => {
    w.files(["many/lines.txt", "hit\n".repeat(600)]);
    const lines = (await w.run("file_grep", { pattern: "hit", path: "many" })).out.split("\n");
    expect(lines[0]).toBe("lines.txt:1:hit");
    expect(lines.slice(500)).toEqual(["[stopped at 500 matches: narrow the search]", ""]);
  });

  it("ends on a symbolic link loop, searching nothing through links", async () => {
    w.files(["loop/a.txt", "found\n"]);
    symlinkSync("..", join(w.root, "loop/up"));
    symlinkSync(join(w.root, "loop"), join(w.root, "loop/self"));
    expect(await w.run("file_grep", { pattern: "found", path: "loop" })).toMatchObject({
      out: "a.txt:1:found\n",
      code: 0,
      timedOut: false,
    });
  });
});
