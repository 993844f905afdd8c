import type { Agent, AgentActivity } from "@ollie/client";

/**
 * Follows `agent`: `update` gets its activity each time its state changes, until `stop()`. Its state is
 * watched once this resolves, so call it before what starts a turn and no change is missed.
 */
export async function followActivity(
  agent: Agent,
  update: (activity: AgentActivity) => void,
): Promise<{ stop(): Promise<void> }> {
  const watching = new AbortController();
  const changes = await agent.watchState({ signal: watching.signal });
  // It ends when stopped, or with the connection or the session: either way there is nothing more to show.
  const watched = (async () => {
    for (;;) {
      await changes.next();
      update(await agent.activity(watching.signal));
    }
  })().catch(() => {});
  return {
    stop: async () => {
      watching.abort();
      await watched;
      await changes.close();
    },
  };
}
