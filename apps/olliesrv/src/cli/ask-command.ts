import type { OllieClient } from "@ollie/client";
import { askTurn } from "../frontend/ask-turn.js";
import { directorySession } from "./directory-session.js";
import { removeSession } from "./remove-session.js";
import type { AskInvocation } from "./session-args.js";
import { catchTurnInterrupts } from "./turn-interrupts.js";

/**
 * `ollie ask`'s exit status for how the turn ended (the agent's `outcome`): 0 `done` or `handled` (a hook
 * took a failure over), 1 `error` (and any failure of ollie itself), 3 `maxsteps`, 4 `blocked` by the
 * preTurn hook, 5 `budget` (a budget refused a model request), 130 `interrupted` (Ctrl-C, or a stop from elsewhere) — 128 plus SIGINT, as a shell reports
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
    case "budget":
      return 5;
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
  const interrupts = catchTurnInterrupts({
    signals: ["SIGINT"],
    stop: () => agent.stop(),
    say,
    stopping: "stopping the turn (Ctrl-C again to leave it running)",
    leaving: `left the turn running in session ${session}`,
  });
  let status = 1;
  try {
    const { outcome } = await askTurn(agent, text, (chunk) => process.stdout.write(chunk), {
      signal: interrupts.leaving,
      submitted: interrupts.submitted,
    });
    status = askExitStatus(outcome.text);
    if (status !== 0) say(`the turn ended: ${outcome.text} (session ${session})`);
    return status;
  } catch (error) {
    if (interrupts.leaving.aborted) return 130;
    throw error;
  } finally {
    interrupts.release();
    // Left running, it is not ours to remove, and the line said where it runs.
    if (made && !interrupts.leaving.aborted) {
      if (status === 0 && !invocation.keep)
        await removeSession(client, session).catch((error: unknown) =>
          say(`could not remove session ${session}: ${(error as Error).message}`),
        );
      else
        say(
          `session ${session} is kept: 'ollie ask ${session} …' goes on with it, 'ollie rm ${session}' removes it`,
        );
    }
  }
}
