import { SESSION_ID } from "../session/names.js";
import { keyValues } from "./agent-files.js";
import type { SessionClient } from "./session-client.js";

/** A session found by its id or its name, and its main agent's `cfg`. */
export interface FoundSession {
  id: string;
  name: string;
  cfg: Record<string, string>;
}

/** Finds the session `given` names (an id, or a name in `session/idx`); throws saying so when there is none. */
export async function findSession(client: SessionClient, given: string): Promise<FoundSession> {
  const rows = (await client.read("session/idx"))
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split("\t"));
  const row = SESSION_ID.test(given)
    ? rows.find(([id]) => id === given)
    : rows.find(([, name]) => name === given);
  if (!row) throw new Error(`no session ${JSON.stringify(given)} (ollie ls lists them)`);
  const [id, name = ""] = row as [string, string?];
  return { id, name, cfg: keyValues(await client.read(`session/${id}/agent/main/cfg`)) };
}
