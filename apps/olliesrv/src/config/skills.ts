import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isMap, LineCounter, parseDocument } from "yaml";

/** A skill: instructions an agent can load into its context. */
export interface Skill {
  name: string;
  description: string;
  text: string;
  file: string;
}

/**
 * The skills in `dirs` (the user's first: a user skill hides a shipped one of the same name): Markdown files
 * that open with a YAML front matter block giving `name:` and `description:`. A file without them, or whose
 * block is not YAML, is reported and skipped.
 */
export async function loadSkills(
  dirs: readonly string[],
  log: (line: string) => void,
): Promise<Map<string, Skill>> {
  const skills = new Map<string, Skill>();
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
      const file = join(dir, name);
      const parsed = parseSkill(await readFile(file, "utf8"));
      if ("problem" in parsed) {
        log(`${file}: ${parsed.problem}; skipped`);
        continue;
      }
      if (!skills.has(parsed.skill.name)) skills.set(parsed.skill.name, { ...parsed.skill, file });
    }
  }
  return skills;
}

type ParsedSkill = { skill: Omit<Skill, "file"> } | { problem: string };

/** A skill file's fields and text, or what is wrong with it, worded for the log. */
function parseSkill(text: string): ParsedSkill {
  const lines = text.split(/\r?\n/);
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (lines[0]?.trimEnd() !== "---" || end < 0)
    return {
      problem: "a skill starts with a front matter block (between --- lines) giving name: and description:",
    };
  const lineCounter = new LineCounter();
  const doc = parseDocument(lines.slice(1, end).join("\n"), { prettyErrors: false, lineCounter });
  const error = doc.errors[0];
  if (error) {
    // The block starts on the file's second line.
    const line = lineCounter.linePos(error.pos[0]).line + 1;
    return { problem: `line ${line}: the front matter is not valid YAML: ${error.message}` };
  }
  const fields = isMap(doc.contents) ? (doc.toJS() as Record<string, unknown>) : {};
  const name = typeof fields.name === "string" ? fields.name.trim() : "";
  const description = typeof fields.description === "string" ? fields.description.trim() : "";
  if (!name || !description) return { problem: "the front matter gives no name: or no description: as text" };
  return {
    skill: {
      name,
      description,
      text: lines
        .slice(end + 1)
        .join("\n")
        .trim(),
    },
  };
}
