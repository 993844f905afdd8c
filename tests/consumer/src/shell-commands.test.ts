import { describe, expect, it } from "vitest";
import type { FencedBlock } from "./readme-code.js";
import { isScript, pastedCommands, strayPrompts } from "./shell-commands.js";

const block = (language: string, code: string): FencedBlock => ({
  document: "README.md",
  line: 10,
  language,
  code,
});

describe("pastedCommands", () => {
  it("takes a sh block whole", () => {
    expect(pastedCommands(block("sh", "ls  # the files\n"))).toBe("ls  # the files\n");
  });

  it("takes a console transcript's commands, without prompts or output", () => {
    const transcript = [
      "$ ninep ls ramfs",
      "notes",
      "$ cat <<'EOF' |",
      "> buy milk",
      "> EOF",
      "$ ninep write \\",
      "    ramfs/notes/todo",
      "done",
      "> output, as it follows output",
      "",
    ].join("\n");
    expect(pastedCommands(block("console", transcript))).toBe(
      "ninep ls ramfs\ncat <<'EOF' |\nbuy milk\nEOF\nninep write \\\n    ramfs/notes/todo\n",
    );
  });
});

it("strayPrompts: the Markdown lines of a sh block that begin with a prompt", () => {
  expect(strayPrompts(block("sh", "ls\n$ ninep ls ramfs\n"))).toEqual([12]);
  expect(strayPrompts(block("console", "$ ninep ls ramfs\n"))).toEqual([]);
});

it("isScript: a block whose first line is #!", () => {
  expect(isScript(block("sh", "#!/bin/sh\necho hi\n"))).toBe(true);
  expect(isScript(block("sh", "# ollie:tool\n"))).toBe(false);
});
