import { type OllieClient, RefusedError, type SessionEntry } from "@ollie/client";
import type { PruneInvocation, RmInvocation } from "./session-args.js";
import { findSession } from "./session-lookup.js";

/** olliesrv's words for a refusal, without the command they answer. */
const why = (error: RefusedError) => error.reason.replace(/^kill: /, "");

/**
 * `ollie rm [-f] SESSION...`: ends each session (an id or a name) and removes what it saved — the sessions
 * it spawned too. A session in which something runs is refused, saying what, unless -f. Silent when it
 * worked; 1 when a session could not be removed (the others still are).
 */
export async function rmCommand(client: OllieClient, invocation: RmInvocation): Promise<number> {
  let failed = 0;
  for (const given of invocation.sessions) {
    try {
      const { id } = await findSession(client, given);
      await client.session(id).kill(invocation.force ? {} : { idle: true as const });
    } catch (error) {
      if (!(error instanceof RefusedError) && !(error instanceof Error && /^no session /.test(error.message)))
        throw error;
      const hint =
        error instanceof RefusedError && !invocation.force ? " ('ollie rm -f' ends it anyway)" : "";
      process.stderr.write(
        `ollie: ${given}: ${error instanceof RefusedError ? why(error) : error.message}${hint}\n`,
      );
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

/**
 * `ollie prune [--older DURATION]`: removes every session in which nothing runs — and, with --older,
 * nothing ran for DURATION — with what it saved; a session whose spawning agent runs stays too. A line per
 * session removed, then how many were removed and kept.
 */
export async function pruneCommand(client: OllieClient, invocation: PruneInvocation): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const sessions = await client.sessions();
  let removed = 0;
  let kept = 0;
  for (const s of sessions) {
    try {
      await client.session(s.id).kill({ idle: invocation.olderSeconds });
      say(`removed ${label(s)}`);
      removed++;
    } catch (error) {
      if (!(error instanceof RefusedError)) throw error;
      // Gone meanwhile: ended with a session it spawned from, which was removed before it.
      if (!(await client.sessions()).some((t) => t.id === s.id)) {
        say(`removed ${label(s)} (with the session that spawned it)`);
        removed++;
      } else kept++;
    }
  }
  const recent = invocation.older === undefined ? "" : `, or used in the last ${invocation.older}`;
  say(
    sessions.length === 0
      ? "no sessions"
      : `${removed} removed, ${kept} kept${kept > 0 ? ` (running${recent})` : ""}`,
  );
  return 0;
}

function label(s: SessionEntry): string {
  return s.name === s.id ? s.id : `${s.id} (${s.name})`;
}
