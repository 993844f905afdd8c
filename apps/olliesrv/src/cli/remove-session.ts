import type { OllieClient } from "@ollie/client";

/**
 * Removes a session a command made for itself and is done with (`ollie run` and `ollie ask` without `--keep`): its agents
 * and the sessions they spawned end, and its saved file goes — what `ollie rm -f` does.
 */
export async function removeSession(client: OllieClient, id: string): Promise<void> {
  await client.session(id).kill();
}
