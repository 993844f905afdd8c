import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Session } from "@ollie/client";
import type { SessionPermissions } from "./permissions.js";
import type { PromptTurn } from "./prompt-turn.js";
import { ToolTracker } from "./tool-tracker.js";

/** An Ollie session as this connection serves it to the editor. */
export interface AcpSession {
  session: Session;
  /** The session's directory: a tool's relative paths are its. */
  cwd: string;
  tools: ToolTracker;
  /** The prompt being answered, if one is. */
  turn?: PromptTurn | undefined;
  /** Its bypass requests, asked of the editor (none for anyone but the owner). */
  permissions?: SessionPermissions | undefined;
}

export function acpSession(session: Session, cwd: string): AcpSession {
  const s: AcpSession = { session, cwd, tools: new ToolTracker(() => s.cwd) };
  return s;
}

/** How full the main agent's context is and what the session has cost, after a turn. */
export async function usageUpdate(session: Session): Promise<SessionUpdate> {
  const agent = session.agent();
  const [context, cost] = await Promise.all([agent.contextSize(), agent.cost()]);
  return {
    sessionUpdate: "usage_update",
    used: context.tokens,
    size: context.window,
    cost: { amount: cost.session, currency: "USD" },
  };
}
