import type { Backend } from "@ollie/backends";
import { ATTR, providerName } from "@ollie/telemetry";
import { agentInstruments, metricsLive } from "./agent-telemetry.js";

/**
 * Adds a request's cost to `ollie.cost.usage`, by profile, backend, provider and model: few values each,
 * so that the counter stays cheap to keep (never a session or an agent's own name).
 */
export function countCost(
  costUsd: number,
  profile: string | undefined,
  backend: Pick<Backend, "name" | "provider">,
  model: string,
): void {
  if (!metricsLive()) return;
  agentInstruments().cost.add(costUsd, {
    ...(profile !== undefined && { [ATTR.agentName]: profile }),
    [ATTR.backend]: backend.name,
    [ATTR.providerName]: providerName(backend.provider),
    [ATTR.requestModel]: model,
  });
}
