import type { PlanEntry } from "@agentclientprotocol/sdk";

const ITEM = /^\s*[-*] \[([ xX])\] (.+)$/;

/**
 * The session's plan (its Markdown checklist) as the editor's plan entries: a checked item is completed,
 * the first unchecked one — the step the agents are on — in progress, the rest pending. Lines that are
 * not checklist items are left out.
 */
export function planEntries(plan: string): PlanEntry[] {
  let current = false;
  const entries: PlanEntry[] = [];
  for (const line of plan.split("\n")) {
    const item = ITEM.exec(line);
    if (!item) continue;
    const done = item[1] !== " ";
    const status = done ? "completed" : current ? "pending" : "in_progress";
    if (!done) current = true;
    entries.push({ content: item[2]!.trim(), priority: "medium", status });
  }
  return entries;
}
