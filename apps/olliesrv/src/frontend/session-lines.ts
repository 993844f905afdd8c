import type { SessionEntry } from "@ollie/client";

/** The sessions as `ollie ls` prints them: a line each — id, name, its main agent's state, directory. */
export function sessionLines(sessions: readonly SessionEntry[]): string {
  return sessions.map((s) => `${s.id}\t${s.name}\t${s.state}\t${s.cwd}\n`).join("");
}
