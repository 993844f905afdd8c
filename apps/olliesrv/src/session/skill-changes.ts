import { sameSkill } from "../config/live-skills.js";
import type { Skill } from "../config/skills.js";

/**
 * What a change of the skills directory (`before` → `now`) does to an agent's `loaded` skills: those gone are
 * unloaded, those changed are rendered anew. `notes` say so in its chat; none when neither happened.
 */
export function skillChanges(
  loaded: readonly string[],
  before: ReadonlyMap<string, Skill>,
  now: ReadonlyMap<string, Skill>,
): { kept: string[]; notes: string[] } {
  const removed = loaded.filter((name) => !now.has(name));
  const changed = loaded.filter((name) => now.has(name) && !sameSkill(before.get(name), now.get(name)));
  const notes: string[] = [];
  if (removed.length > 0)
    notes.push(
      `· skill ${removed.join(", ")} is no longer in the skills directory: unloaded from the system prompt`,
    );
  if (changed.length > 0)
    notes.push(
      `· skill ${changed.join(", ")} changed: the system prompt has the new text from the next turn`,
    );
  return { kept: loaded.filter((name) => now.has(name)), notes };
}
