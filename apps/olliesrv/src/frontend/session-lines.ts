import type { SessionEntry } from "@ollie/client";

/** The header of the sessions' lines, in `ollie ls` and ollie_status. */
export const SESSIONS_HEADER = "id\tname\tstate\tdirectory\n";

/** The sessions as `ollie ls` prints them: a line each — id, name, its main agent's state, directory. */
export function sessionLines(sessions: readonly SessionEntry[]): string {
  return sessions.map((s) => `${s.id}\t${s.name}\t${s.state}\t${s.cwd}\n`).join("");
}

/** `ollie ls`: the header, then the lines (as `ps` does); nothing at all when there is no session. */
export function sessionTable(sessions: readonly SessionEntry[]): string {
  return sessions.length === 0 ? "" : SESSIONS_HEADER + sessionLines(sessions);
}
