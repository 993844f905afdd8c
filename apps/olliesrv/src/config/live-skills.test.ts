import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LiveSkills } from "./live-skills.js";
import type { Skill } from "./skills.js";

const roots: string[] = [];
const open: LiveSkills[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A configuration directory whose skills/ does not exist yet, a shipped one with `git`, and the log kept. */
async function place() {
  const root = mkdtempSync(join(tmpdir(), "ollie-live-skills-"));
  roots.push(root);
  const user = join(root, "config", "skills");
  const shipped = join(root, "defaults", "skills");
  mkdirSync(join(root, "config"));
  mkdirSync(shipped, { recursive: true });
  writeFileSync(join(shipped, "git.md"), skill("git", "Inspect changes.", "Use git status."));
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(`INFO ${l}`), warn: (l: string) => lines.push(`WARN ${l}`) };
  const skills = await LiveSkills.load([user, shipped], log);
  open.push(skills);
  const changes: Array<ReadonlyMap<string, Skill>> = [];
  skills.onChange((before) => changes.push(before));
  return { user, skills, lines, changes };
}

const skill = (name: string, description: string, text: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${text}\n`;

const names = (skills: ReadonlyMap<string, Skill>) => [...skills.keys()];

describe("the skills, read again while olliesrv runs", () => {
  it("takes a skill added, changed or removed at reload, telling its listeners what there was", async () => {
    const { user, skills, changes, lines } = await place();
    expect(names(skills.current)).toEqual(["git"]);
    mkdirSync(user);
    writeFileSync(join(user, "review.md"), skill("review", "Review a diff.", "Read every file."));
    await skills.reload();
    expect(names(skills.current)).toEqual(["review", "git"]);
    expect(changes.map(names)).toEqual([["git"]]);
    expect(lines).toEqual(["INFO read the skills again: review, git"]);

    // The same files read again change nothing, and nobody is told.
    await skills.reload();
    expect(changes).toHaveLength(1);

    writeFileSync(join(user, "review.md"), skill("review", "Review a diff.", "Read every file twice."));
    await skills.reload();
    expect(skills.current.get("review")?.text).toBe("Read every file twice.");
    expect(changes.at(-1)?.get("review")?.text).toBe("Read every file.");

    // A user skill hides the shipped one of its name; removed, the shipped one is back.
    writeFileSync(join(user, "git.md"), skill("git", "Mine.", "Use jj."));
    await skills.reload();
    expect(skills.current.get("git")?.description).toBe("Mine.");
    unlinkSync(join(user, "git.md"));
    unlinkSync(join(user, "review.md"));
    await skills.reload();
    expect(names(skills.current)).toEqual(["git"]);
    expect(skills.current.get("git")?.description).toBe("Inspect changes.");
    expect(changes).toHaveLength(4);
  });

  it("says what is wrong with a broken skill file once, however often it is read", async () => {
    const { user, skills, lines } = await place();
    mkdirSync(user);
    writeFileSync(join(user, "broken.md"), "no front matter\n");
    await skills.reload();
    await skills.reload();
    writeFileSync(join(user, "ok.md"), skill("ok", "Fine.", "Text."));
    await skills.reload();
    expect(lines.filter((l) => l.startsWith("WARN"))).toEqual([
      expect.stringMatching(/^WARN .*broken\.md: a skill starts with a front matter block.*; skipped$/),
    ]);
    expect(names(skills.current)).toEqual(["ok", "git"]);
  });

  it("sees the directory made later and a file written in it, without being asked", async () => {
    const { user, skills, changes } = await place();
    skills.watch();
    mkdirSync(user);
    writeFileSync(join(user, "deploy.md"), skill("deploy", "Ship it.", "Run make deploy."));
    await vi.waitFor(() => expect(names(skills.current)).toContain("deploy"), { timeout: 5000 });
    unlinkSync(join(user, "deploy.md"));
    await vi.waitFor(() => expect(names(skills.current)).toEqual(["git"]), { timeout: 5000 });
    expect(changes.length).toBeGreaterThanOrEqual(2);
  });
});
