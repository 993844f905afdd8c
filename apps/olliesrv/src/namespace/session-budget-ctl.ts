import { pricedInDollars } from "@ollie/backends";
import { Errno } from "@ollie/ninep";
import type { Session } from "../session/session.js";
import { parseBudget } from "../session/session-budget.js";
import { type SessionEnvironment, splitUname } from "../session/slot-context.js";
import { fail, failWith } from "./fail.js";
import { effectiveBackend } from "./models-file.js";

/**
 * `budget USD`, `budget tokens N`, `budget off` on a session's ctl: sets what the session (and every session
 * made from it) may spend. The owner sets any session's; an agent, only the budget of a session made from its
 * own — never its own session's, which would undo the limit it is held to. No session is given more than a
 * session it was made from has left.
 */
export async function setBudget(
  env: SessionEnvironment,
  session: Session,
  words: string,
  by: string,
): Promise<void> {
  const owner = env.policy.owner;
  const lineage = session.lineage();
  if (by !== owner) {
    const from = splitUname(by)?.session;
    if (!lineage.slice(1).some((s) => s.id === from))
      fail(
        `only ${owner}, or an agent of a session ${session.id} was made from, sets its budget`,
        Errno.EACCES,
      );
  }
  let limit: ReturnType<typeof parseBudget>;
  try {
    limit = parseBudget(words, session.budget.limit);
  } catch (error) {
    failWith(error);
  }
  for (const above of lineage.slice(1)) {
    const left = above.budget.left();
    if (limit.usd !== undefined && left.usd !== undefined && limit.usd > left.usd)
      fail(
        `session ${above.id}, which made this one, has $${left.usd.toFixed(4)} left: no more can be given`,
      );
    if (limit.tokens !== undefined && left.tokens !== undefined && limit.tokens > left.tokens)
      fail(`session ${above.id}, which made this one, has ${left.tokens} tokens left: no more can be given`);
  }
  if (limit.usd !== undefined && limit.tokens === undefined) {
    const unpriced = await unpricedAgent(env, session);
    if (unpriced)
      fail(
        `a budget in dollars cannot hold ${unpriced}, which has no price in dollars: set 'budget tokens N' first`,
      );
  }
  session.budget.limit = limit;
  await session.save();
  // Followers (ollie web's pages, a dashboard) learn of it as of any change of the session's.
  session.events.publish("session.limits", { usd: limit.usd ?? null, tokens: limit.tokens ?? null });
}

/** The first of the session's agents whose requests cost no known dollars, worded; undefined if none. */
async function unpricedAgent(env: SessionEnvironment, session: Session): Promise<string | undefined> {
  for (const slot of session.agents.values()) {
    const { backend, model } = await effectiveBackend(env, slot);
    const provider = env.making.backends.conf.profiles.get(backend)?.type ?? "unknown";
    if (!pricedInDollars(provider, model)) return `agent ${slot.name}'s model ${model} (${provider})`;
  }
  return undefined;
}
