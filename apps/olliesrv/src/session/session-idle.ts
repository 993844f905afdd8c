import type { AgentSlot } from "./agent-slot.js";
import type { Session } from "./session.js";
import type { Sessions } from "./sessions.js";
import { splitUname } from "./slot-context.js";

/**
 * Why session `session` may not be ended as an idle one, or undefined when it may: something runs in it or in
 * a session it spawned (a turn, a hook, a compaction, prompt commands, a prompt waiting, a tool process left
 * in the background), the agent that spawned it is running (it may be waiting on it), or — with `forMs` —
 * something ran in it or in those it spawned less than `forMs` ago.
 */
export async function busyReason(
  sessions: Sessions,
  session: Session,
  forMs = 0,
): Promise<string | undefined> {
  const family = [session, ...spawnedBy(sessions, session)];
  const doing = () => {
    for (const s of family) {
      for (const slot of s.agents.values()) {
        const what = running(slot);
        if (what) return `${where(s, session)}${slot.name} is ${what}`;
      }
    }
    const parent = session.parent === undefined ? undefined : sessions.agent(session.parent);
    const what = parent && running(parent);
    return what ? `the agent that spawned it, ${parent.uname}, is ${what}` : undefined;
  };
  // A running call is a process at toolsrv too: the state says it better.
  const before = doing();
  if (before) return before;
  for (const s of family) {
    for (const slot of s.agents.values()) {
      const conn = slot.toolsrv;
      const left = conn ? (await conn.processes().catch(() => [])).filter((p) => p.status === "running") : [];
      if (left.length > 0)
        return `${where(s, session)}${slot.name} has a tool process running in the background (${left.map((p) => `${p.tool} ${p.id}`).join(", ")})`;
    }
  }
  // Looked at again after toolsrv answered: the kill follows this at once.
  const after = doing();
  if (after) return after;
  const last = Math.max(...family.map((s) => s.active.getTime()));
  const ago = Date.now() - last;
  if (ago < forMs)
    return `something ran in it ${Math.round(ago / 1000)} s ago, less than the ${Math.round(forMs / 1000)} s asked`;
  return undefined;
}

/** What an agent is doing, in words, or undefined when nothing runs and nothing waits. */
function running(slot: AgentSlot): string | undefined {
  const state = slot.shown.state.get();
  if (state !== "idle") return state;
  if (slot.agent?.busy) return "about to take a prompt";
  return undefined;
}

/** How a session of the family is named in a reason: nothing for the session itself. */
function where(s: Session, asked: Session): string {
  return s === asked ? "" : `session ${s.id}, which it spawned: `;
}

/** The sessions `session`'s agents spawned, and theirs, and so on. */
function spawnedBy(sessions: Sessions, session: Session): Session[] {
  const children = sessions.list().filter((s) => s.parent && splitUname(s.parent)?.session === session.id);
  return children.flatMap((c) => [c, ...spawnedBy(sessions, c)]);
}
