import { NoSuchSessionError, type OllieClient, type SessionEntry } from "@ollie/client";

/** Finds the session `given` names (an id, or a session's name); throws saying so when there is none. */
export async function findSession(client: OllieClient, given: string): Promise<SessionEntry> {
  try {
    return await client.findSession(given);
  } catch (error) {
    if (error instanceof NoSuchSessionError) throw new Error(`${error.message} (ollie ls lists them)`);
    throw error;
  }
}
