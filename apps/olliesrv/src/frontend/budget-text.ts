import type { SessionBudget } from "@ollie/client";
import { dollars } from "../dollars.js";
import { shortCount } from "./agent-text.js";

/**
 * A session's budget for `ollie status`: what is spent of each limit set (`$0.4100 of $2.0000`, `1200 of
 * 50000 tokens`); undefined without a limit.
 */
export function budgetText(budget: SessionBudget | undefined): string | undefined {
  if (!budget) return undefined;
  const parts = [
    ...(budget.usd === undefined ? [] : [`${dollars(budget.usdSpent)} of ${dollars(budget.usd)}`]),
    ...(budget.tokens === undefined ? [] : [`${budget.tokensSpent} of ${budget.tokens} tokens`]),
  ];
  return parts.length === 0 ? undefined : `budget ${parts.join(", ")}`;
}

/**
 * A session's budget in a narrow column (`ollie top`): the share spent of the limit nearest its end, and
 * that limit (`41% of $2.00`, `12% of 50k`); empty without a limit.
 */
export function budgetCell(budget: SessionBudget | undefined): string {
  const nearest = nearestLimit(budget);
  return nearest ? `${Math.floor(nearest.share * 100)}% of ${nearest.limit}` : "";
}

/** The share spent (0 to 1, or more) of the limit nearest its end; undefined without a limit. */
export function spentShare(budget: SessionBudget | undefined): number | undefined {
  return nearestLimit(budget)?.share;
}

/** The limit nearest its end, and the share of it spent. */
function nearestLimit(budget: SessionBudget | undefined): { share: number; limit: string } | undefined {
  if (!budget) return undefined;
  const shares = [
    ...(budget.usd === undefined
      ? []
      : [{ share: budget.usdSpent / budget.usd, limit: `$${budget.usd.toFixed(2)}` }]),
    ...(budget.tokens === undefined
      ? []
      : [{ share: budget.tokensSpent / budget.tokens, limit: shortCount(budget.tokens) }]),
  ];
  return shares.sort((a, b) => b.share - a.share)[0];
}
