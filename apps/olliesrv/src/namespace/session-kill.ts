import { Errno } from "@ollie/ninep";
import type { Session } from "../session/session.js";
import { busyReason } from "../session/session-idle.js";
import type { Sessions } from "../session/sessions.js";
import { fail } from "./fail.js";

/**
 * `kill` on a session's ctl: ends the session (the sessions it spawned first) and removes what it saved.
 * `kill --idle` does only when nothing runs in it, in what it spawned, or in the agent that spawned it;
 * `kill --idle SECONDS`, only when nothing has for that long either (what `ollie rm` and `ollie prune`
 * write). Refused with what runs, or when something last did.
 */
export async function killSession(sessions: Sessions, session: Session, rest: string): Promise<void> {
  const words = rest.split(/\s+/).filter(Boolean);
  if (words.length === 0) return sessions.kill(session.id);
  const [flag, seconds = "0", ...more] = words;
  if (flag !== "--idle" || more.length > 0) fail("kill takes nothing, or --idle [SECONDS]");
  if (!/^\d{1,10}$/.test(seconds)) fail(`--idle takes whole seconds, not '${seconds}'`);
  const busy = await busyReason(sessions, session, Number(seconds) * 1000);
  if (busy) fail(busy, Errno.EBUSY);
  // Killed meanwhile (with its parent, or by someone else): there is nothing left to end.
  if (sessions.get(session.id) !== session) fail(`session ${session.id} was killed meanwhile`, Errno.ENOENT);
  await sessions.kill(session.id);
}
