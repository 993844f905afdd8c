import { clone, file } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";
import { forkAgent, parseForkSpec } from "../session/fork.js";
import type { Session } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";

/**
 * An agent's `fork`: write `[--clean] [NAME]` (or nothing) and read the new session's id back on the same
 * open, as `session/new` answers — what `fork` on the ctl does, for a caller who wants the id.
 */
export function forkFile(sessions: Sessions, session: Session, slot: AgentSlot, group: string) {
  return file(
    "fork",
    clone(async (spec, ctx) => (await forkAgent(sessions, session, slot, parseForkSpec(spec), ctx.uname)).id),
    { mode: 0o664, owner: slot.uname, group },
  );
}
