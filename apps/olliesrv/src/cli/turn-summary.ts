import type { Agent, SessionBudget, UsageTotals } from "@ollie/client";
import { dollars } from "../dollars.js";
import { duration, shortCount } from "../frontend/agent-text.js";
import { budgetCell } from "../frontend/budget-text.js";
import type { Palette } from "./colour.js";

/**
 * The line that ends a turn in `ollie sh`: how it ended, its tokens, cost and time, then where the agent
 * stands — its profile and model, how full its context is, what the session has cost and, with a budget, the
 * share of it spent (`budget 41% of $2.00`). What cannot be
 * read (the session went meanwhile) is left out. An interrupted turn's tokens are marked as approximate:
 * the request it cut off is counted at an estimate, the provider never having said.
 */
export async function turnSummary(
  p: Palette,
  agent: Agent,
  outcome: string,
  ms: number,
  budget?: () => Promise<SessionBudget>,
): Promise<string> {
  const [usage, cfg, context, cost, limits] = await Promise.all([
    agent.usage().catch(() => ({}) as { turn?: UsageTotals }),
    agent.cfg().catch(() => undefined),
    agent.contextSize().catch(() => undefined),
    agent.cost().catch(() => undefined),
    budget?.().catch(() => undefined),
  ]);
  const spent = budgetCell(limits);
  const mark = outcome === "done" ? p.green : outcome.startsWith("error") ? p.red : p.yellow;
  const turn = usage.turn;
  const about = outcome === "interrupted" ? "~" : "";
  const tokens = turn ? `${about}${turn.inputTokens} in / ${turn.outputTokens} out tokens` : "no tokens";
  const where = [
    ...(cfg ? [cfg.profile, cfg.model ?? "(the profile's model)"] : []),
    ...(context
      ? [
          `context ${shortCount(context.tokens)} of ${shortCount(context.window)} (${Math.round(context.fraction * 100)}%)`,
        ]
      : []),
    ...(cost ? [`${dollars(cost.session)} session`] : []),
    ...(spent ? [`budget ${spent}`] : []),
  ];
  const status = where.length > 0 ? ` │ ${where.join(" · ")}` : "";
  return `${mark(`[${outcome || "ended"}]`)} ${p.dim(`${tokens} · ${dollars(turn?.costUsd ?? 0)} · ${duration(ms)}${status}`)}`;
}
