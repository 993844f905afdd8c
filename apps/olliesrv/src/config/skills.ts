import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** A skill: instructions an agent can load into its context. */
export interface Skill {
  name: string;
  description: string;
  text: string;
  file: string;
}

/**
 * The skills in `dirs` (the user's first: a user skill hides a shipped one of the same name): Markdown files
 * with a front matter of `name:` and `description:`. A file without them is reported and skipped.
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
      if (!parsed) {
        log(`${file}: a skill starts with a front matter block giving name: and description:; skipped`);
        continue;
      }
      if (!skills.has(parsed.name)) skills.set(parsed.name, { ...parsed, file });
    }
  }
  return skills;
}

function parseSkill(text: string): { name: string; description: string; text: string } | undefined {
  const m = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const fields = Object.fromEntries(
    m[1]!
      .split("\n")
      .map((l) => /^(\w+):\s*(.*)$/.exec(l))
      .filter((x): x is RegExpExecArray => x !== null)
      .map((x) => [x[1]!, x[2]!.trim()]),
  );
  if (!fields.name || !fields.description) return undefined;
  return { name: fields.name, description: fields.description, text: m[2]!.trim() };
}
