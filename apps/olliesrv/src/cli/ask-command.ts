import type { OllieClient } from "@ollie/client";
import { askTurn } from "../frontend/ask-turn.js";
import { directorySession } from "./directory-session.js";
import type { AskInvocation } from "./session-args.js";

/**
 * `ollie ask`'s exit status for how the turn ended (the agent's `outcome`): 0 `done` or `handled` (a hook
 * took a failure over), 1 `error` (and any failure of ollie itself), 3 `maxsteps`, 4 `blocked` by the
 * preTurn hook, 130 `interrupted` (Ctrl-C, or a stop from elsewhere) — 128 plus SIGINT, as a shell reports
 * a command Ctrl-C ended. 2 stays the usage mistake's.
 */
export function askExitStatus(outcome: string): number {
  switch (outcome) {
    case "done":
    case "handled":
      return 0;
    case "maxsteps":
      return 3;
    case "blocked":
      return 4;
    case "interrupted":
      return 130;
    default:
      return 1;
  }
}

/**
 * `ollie ask [--agent P] [--keep] [SESSION] TEXT`: prompts and streams the turn's chat to stdout; what ollie
 * itself says goes to stderr. Without SESSION, a new session in this directory (profile DIRECTORY_PROFILE
 * unless --agent), said in a line, which is removed once its turn ended well unless --keep: kept, and said
 * so, after a turn that did not (for `ollie chat`), or that was left running. Ctrl-C stops the turn on the
 * server — ollie waits to see it end, as `interrupted` — and a second Ctrl-C leaves at once, the turn
 * running on.
 */
export async function askCommand(client: OllieClient, invocation: AskInvocation): Promise<number> {
  const say = (line: string) => process.stderr.write(`ollie: ${line}\n`);
  const made = invocation.session ? undefined : await directorySession(client, invocation.agent, "ollie ask");
  if (made) say(made.said);
  const session = invocation.session ?? made!.id;
  const text = invocation.text;
  const agent = client.session(session).agent();
  const following = new AbortController();
  let submitted = false;
  let interrupts = 0;
  // A Ctrl-C may race the turn's end: a stop that finds nothing running is no failure (the outcome says how
  // the turn ended).
  const stop = () => {
    void agent.stop().catch((error: unknown) => {
      // After a second Ctrl-C, the connection is closed under it.
      if (!following.signal.aborted) say(`could not stop the turn: ${(error as Error).message}`);
    });
  };
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      say("stopping the turn (Ctrl-C again to leave it running)");
      // Before the prompt is taken there is no turn to stop yet: it is stopped as soon as it is.
      if (submitted) stop();
    } else {
      say(`left the turn running in session ${session}`);
      following.abort();
    }
  };
  process.on("SIGINT", onInterrupt);
  let status = 1;
  try {
    const { outcome } = await askTurn(agent, text, (chunk) => process.stdout.write(chunk), {
      signal: following.signal,
      submitted: () => {
        submitted = true;
        if (interrupts > 0) stop();
      },
    });
    status = askExitStatus(outcome.text);
    if (status !== 0) say(`the turn ended: ${outcome.text} (session ${session})`);
    return status;
  } catch (error) {
    if (following.signal.aborted) return 130;
    throw error;
  } finally {
    process.off("SIGINT", onInterrupt);
    // Left running, it is not ours to remove, and the line said where it runs.
    if (made && !following.signal.aborted) {
      if (status === 0 && !invocation.keep)
        await client
          .session(session)
          .kill()
          .catch((error: unknown) => say(`could not remove session ${session}: ${(error as Error).message}`));
      else
        say(
          `session ${session} is kept: 'ollie ask ${session} …' goes on with it, 'ollie rm ${session}' removes it`,
        );
    }
  }
}
