import type { SessionClient } from "./session-client.js";

/**
 * Stops the running turn of the agent at `agent` (`session/ID/agent/NAME`), for a Ctrl-C in `ollie ask` or
 * `ollie sh`. A Ctrl-C may race the turn's end: the agent then answers "nothing is running", which is no
 * failure — the turn's outcome says how it ended — so it is not thrown. Any other refusal is.
 */
export async function stopTurn(client: Pick<SessionClient, "write">, agent: string): Promise<void> {
  try {
    await client.write(`${agent}/ctl`, "stop\n");
  } catch (error) {
    if (!/nothing is running/.test((error as Error).message)) throw error;
  }
}
