import type { OllieClient } from "@ollie/client";

/**
 * The agent profile of a session that `ollie sh`, `ollie ask` and `ollie run` make in this directory: one
 * that can read, edit and run what is here (the `default` profile has no shell or file tools). `--agent`
 * names another.
 */
export const DIRECTORY_PROFILE = "coding";

/** A session made here for a command: its id, its profile, and the line that says so. */
export interface DirectorySession {
  id: string;
  profile: string;
  /** `new session ID, profile P`, and how to get another profile when it is the default one. */
  said: string;
}

/**
 * Makes a session in this directory with profile `agent`, else DIRECTORY_PROFILE. `command` is the command
 * line that would name another profile (`ollie ask`), for the line that says which profile it got.
 */
export async function directorySession(
  client: OllieClient,
  agent: string | undefined,
  command: string,
): Promise<DirectorySession> {
  const profile = agent ?? DIRECTORY_PROFILE;
  const { id } = await client.newSession({ agent: profile, cwd: process.cwd() });
  const another = agent === undefined ? ` (${command} --agent PROFILE for another)` : "";
  return { id, profile, said: `new session ${id}, profile ${profile}${another}` };
}
