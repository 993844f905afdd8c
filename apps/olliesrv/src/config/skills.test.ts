import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "./skills.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "olliesrv-skills-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes skill files into `root/dir`, returning the directory. */
function skillDir(dir: string, files: Record<string, string>): string {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return path;
}

async function load(...dirs: string[]) {
  const log: string[] = [];
  const skills = await loadSkills(dirs, (line) => log.push(line));
  return { skills, log };
}

describe("loadSkills", () => {
  it("reads name and description from YAML front matter, the rest as the text", async () => {
    const dir = skillDir("shipped", {
      "git.md": "---\nname: git\ndescription: Inspect and commit changes.\n---\nUse `git status`.\n",
      "review.md": [
        "---",
        "name: review",
        "# YAML, so comments, quoting and folded text work",
        'description: "Review: read the diff"',
        "tags: [quality]",
        "---",
        "",
        "Read every file.",
        "",
      ].join("\r\n"),
      "long.md": "---\nname: long\ndescription: >\n  One sentence\n  over two lines.\n---\nText.\n",
      "notes.txt": "not a skill",
    });
    const { skills, log } = await load(dir);
    expect(log).toEqual([]);
    expect([...skills.values()]).toEqual([
      {
        name: "git",
        description: "Inspect and commit changes.",
        text: "Use `git status`.",
        file: join(dir, "git.md"),
      },
      {
        name: "long",
        description: "One sentence over two lines.",
        text: "Text.",
        file: join(dir, "long.md"),
      },
      {
        name: "review",
        description: "Review: read the diff",
        text: "Read every file.",
        file: join(dir, "review.md"),
      },
    ]);
  });

  it("lets a skill in an earlier directory hide one of the same name", async () => {
    const user = skillDir("user", { "mine.md": "---\nname: git\ndescription: My way.\n---\n" });
    const shipped = skillDir("shipped", { "git.md": "---\nname: git\ndescription: Shipped.\n---\n" });
    const { skills } = await load(user, shipped, join(root, "missing"));
    expect(skills.get("git")).toMatchObject({ description: "My way.", file: join(user, "mine.md") });
  });

  it("reports and skips front matter that is not YAML, with the file and the line", async () => {
    const dir = skillDir("bad", {
      "colon.md": "---\nname: git\ndescription: Use git: status and diff\n---\nText.\n",
      "twice.md": "---\nname: a\nname: b\ndescription: d\n---\n",
      "good.md": "---\nname: good\ndescription: Fine.\n---\n",
    });
    const { skills, log } = await load(dir);
    expect([...skills.keys()]).toEqual(["good"]);
    expect(log).toEqual([
      `${join(dir, "colon.md")}:3:14: not YAML: Nested mappings are not allowed in compact mappings; skipped`,
      `${join(dir, "twice.md")}:3:1: not YAML: Map keys must be unique; skipped`,
    ]);
  });

  it("reports and skips a file without front matter or without a name and description as text, placing each problem", async () => {
    const dir = skillDir("incomplete", {
      "bare.md": "Just text.\n",
      "unclosed.md": "---\nname: x\ndescription: y\n",
      "nameless.md": "---\ndescription: No name.\n---\n",
      "number.md": "---\nname: 42\ndescription: A number is not a name.\n---\n",
      "list.md": "---\n- name\n- description\n---\n",
      "empty.md": "---\n---\nText.\n",
    });
    const { skills, log } = await load(dir);
    expect(skills.size).toBe(0);
    const noBlock =
      "a skill starts with a front matter block (between --- lines) giving name: and description:";
    expect(log).toEqual([
      `${join(dir, "bare.md")}: ${noBlock}; skipped`,
      `${join(dir, "empty.md")}: name: missing; description: missing; skipped`,
      `${join(dir, "list.md")}:2:1: the front matter is not a mapping giving name: and description:; skipped`,
      `${join(dir, "nameless.md")}: name: missing; skipped`,
      `${join(dir, "number.md")}:2:7: name: not text; skipped`,
      `${join(dir, "unclosed.md")}: ${noBlock}; skipped`,
    ]);
  });
});
