import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, checkDocument, parseConfigText } from "@ollie/config-file";
import { z } from "zod";

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
      let skill: Skill;
      try {
        skill = parseSkill(await readFile(file, "utf8"), file);
      } catch (error) {
        // Removed since the directory was listed (an editor's save replaces a file): it is not there.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        if (!(error instanceof ConfigError)) throw error;
        log(`${error.message}; skipped`);
        continue;
      }
      if (!skills.has(skill.name)) skills.set(skill.name, skill);
    }
  }
  return skills;
}

const NO_FRONT_MATTER =
  "a skill starts with a front matter block (between --- lines) giving name: and description:";

const asText = z
  .string({ error: (issue) => (issue.input === undefined ? "missing" : "not text") })
  .trim()
  .min(1, "empty");

/** The front matter's fields Ollie reads; others (tags, versions) are the author's own. */
const frontMatterSchema = z.looseObject(
  { name: asText, description: asText },
  { error: "the front matter is not a mapping giving name: and description:" },
);

/** A skill file's fields and text; a ConfigError placing what is wrong in the file. */
function parseSkill(text: string, file: string): Skill {
  const lines = text.split(/\r?\n/);
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (lines[0]?.trimEnd() !== "---" || end < 0) throw new ConfigError(file, { problem: NO_FRONT_MATTER });
  // The block starts on the file's second line: one empty line before it keeps positions the file's own.
  const doc = parseConfigText(`\n${lines.slice(1, end).join("\n")}`, file, "yaml");
  const fields = checkDocument(frontMatterSchema, doc);
  return {
    name: fields.name,
    description: fields.description,
    text: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
    file,
  };
}
