import type { TurnOutcome } from "../events/turn-outcome.js";
import { hookNote } from "../history/nudge.js";
import { runTurn } from "../loop/run-turn.js";
import type { AgentCore } from "./agent-core.js";

/** At most this many postTurn blocks in a row keep a turn going. */
const POST_TURN_BLOCKS = 3;

/**
 * Runs a turn, then the postTurn hook. A block makes the turn go on, its output as the next prompt — at
 * most POST_TURN_BLOCKS times in a row; the payload says how many blocks came before. Each turn's outcome
 * is told to `seen`; the last one is returned.
 */
export async function turnWithHooks(
  core: AgentCore,
  prompt: string,
  signal: AbortSignal,
  seen: (outcome: TurnOutcome) => void,
): Promise<TurnOutcome> {
  let outcome = await runTurn(core, prompt, signal);
  seen(outcome);
  for (let blocks = 0; core.runtime.spec.hooks?.run && !signal.aborted; blocks++) {
    const post = await core.hook(
      "postTurn",
      {
        status: outcome.status,
        steps: outcome.steps,
        reply: outcome.reply?.content ?? "",
        block_count: blocks,
        hook_active: blocks > 0,
      },
      signal,
    );
    if (post.action !== "block") break;
    if (blocks >= POST_TURN_BLOCKS) {
      core.emit({
        type: "info",
        message: `the postTurn hook blocked ${blocks} times in a row; the turn ends anyway`,
      });
      break;
    }
    outcome = await runTurn(core, hookNote("postTurn", post.output), signal);
    seen(outcome);
  }
  return outcome;
}
