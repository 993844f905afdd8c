import type { OllieClient } from "@ollie/client";

/**
 * Removes a session a command made for itself and is done with (`ollie run` without `--keep`): its agents
 * and the sessions they spawned end, and its saved file goes. `kill` is the namespace's one way to do it for
 * now; this is the one place to change when removing a session's stored state gets a command of its own.
 */
export async function removeSession(client: OllieClient, id: string): Promise<void> {
  await client.session(id).kill();
}
