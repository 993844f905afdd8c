import type { Usage } from "@ollie/backends";
import type { UsageMeter } from "../history/usage-meter.js";
import type { AgentEvent } from "./agent-events.js";

export type UsageEvent = Extract<AgentEvent, { type: "usage" }>;

/**
 * The `usage` event of a request `meter` has just recorded at `costUsd`: its own figures beside copies of
 * the totals as they now stand. A compaction summary's request names the model that wrote it
 * (`summaryModel`) and carries the compaction totals too.
 */
export function usageEvent(
  meter: UsageMeter,
  request: Usage,
  costUsd: number,
  summaryModel?: string,
): UsageEvent {
  return {
    type: "usage",
    request,
    costUsd,
    turn: { ...meter.turn },
    session: { ...meter.session },
    ...(summaryModel !== undefined && { model: summaryModel, compaction: { ...meter.compaction } }),
  };
}
