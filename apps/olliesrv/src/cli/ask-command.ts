import type { OllieClient } from "@ollie/client";
import { askTurn } from "../frontend/ask-turn.js";
import { catchTurnInterrupts } from "./turn-interrupts.js";

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
 * `ollie ask [SESSION] TEXT`: prompts (in a new session in this directory when none is given) and streams
 * the turn's chat to stdout; what ollie itself says goes to stderr. Ctrl-C stops the turn on the server —
 * ollie waits to see it end, as `interrupted` — and a second Ctrl-C leaves at once, the turn running on.
 */
export async function askCommand(
  client: OllieClient,
  given: string | undefined,
  text: string,
): Promise<number> {
  const session = given ?? (await client.newSession({ cwd: process.cwd() })).id;
  const agent = client.session(session).agent();
  const say = (line: string) => process.stderr.write(`ollie: ${line}\n`);
  const interrupts = catchTurnInterrupts({
    signals: ["SIGINT"],
    stop: () => agent.stop(),
    say,
    stopping: "stopping the turn (Ctrl-C again to leave it running)",
    leaving: `left the turn running in session ${session}`,
  });
  try {
    const { outcome } = await askTurn(agent, text, (chunk) => process.stdout.write(chunk), {
      signal: interrupts.leaving,
      submitted: interrupts.submitted,
    });
    const status = askExitStatus(outcome.text);
    if (status !== 0) say(`the turn ended: ${outcome.text} (session ${session})`);
    return status;
  } catch (error) {
    if (interrupts.leaving.aborted) return 130;
    throw error;
  } finally {
    interrupts.release();
  }
}
