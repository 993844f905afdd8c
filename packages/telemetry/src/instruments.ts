// The metrics Ollie records: the GenAI conventions' histograms with their advised buckets, and Ollie's own
// counters. Instruments come from the meter provider registered when they are first asked for, and are made
// again if another is registered later: the API has no proxy meter, so instruments made before a daemon
// starts its SDK would stay no-ops for good.
import {
  type BatchObservableResult,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
} from "@opentelemetry/api";
import { BUCKETS, GENAI_SEMCONV_VERSION, METRIC } from "./semconv.js";

export interface OllieInstruments {
  /** `gen_ai.client.token.usage`, {token}, per request and token type. */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration`, seconds, per model request. */
  operationDuration: Histogram;
  /** `gen_ai.client.operation.time_to_first_chunk`, seconds, per streamed model request. */
  timeToFirstChunk: Histogram;
  /** `gen_ai.invoke_agent.duration`, seconds, per turn. */
  invokeAgentDuration: Histogram;
  /** `gen_ai.execute_tool.duration`, seconds, per tool call. */
  executeToolDuration: Histogram;
  /** `ollie.tool.failures`, per failed tool call, by `error.type`. */
  toolFailures: Counter;
  /** `ollie.cost.usage`, US dollars, per profile, backend and model. */
  cost: Counter;
}

const made = new Map<string, { provider: MeterProvider; instruments: OllieInstruments }>();

/** The instruments of a scope (a library's package name), from the meter provider registered now. */
export function ollieInstruments(scope: string): OllieInstruments {
  const provider = metrics.getMeterProvider();
  const cached = made.get(scope);
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter(scope, GENAI_SEMCONV_VERSION);
  const seconds = (name: string, description: string, buckets: readonly number[]) =>
    meter.createHistogram(name, {
      unit: "s",
      description,
      advice: { explicitBucketBoundaries: [...buckets] },
    });
  const instruments: OllieInstruments = {
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      unit: "{token}",
      description: "Tokens used by a model request, by token type",
      advice: { explicitBucketBoundaries: [...BUCKETS.tokens] },
    }),
    operationDuration: seconds(
      METRIC.operationDuration,
      "Duration of a model request",
      BUCKETS.operationSeconds,
    ),
    timeToFirstChunk: seconds(
      METRIC.timeToFirstChunk,
      "Time from a streamed model request to its first chunk",
      BUCKETS.operationSeconds,
    ),
    invokeAgentDuration: seconds(
      METRIC.invokeAgentDuration,
      "Duration of an agent's turn",
      BUCKETS.agentSeconds,
    ),
    executeToolDuration: seconds(
      METRIC.executeToolDuration,
      "Duration of a tool call",
      BUCKETS.operationSeconds,
    ),
    toolFailures: meter.createCounter(METRIC.toolFailures, {
      unit: "{call}",
      description: "Tool calls that failed, by error type",
    }),
    cost: meter.createCounter(METRIC.cost, { unit: "USD", description: "Estimated spend on model requests" }),
  };
  made.set(scope, { provider, instruments });
  return instruments;
}

/** How many sessions are open and how many agents are in each state, read when metrics are collected. */
export interface Activity {
  sessions: number;
  agentsByState: ReadonlyMap<string, number>;
}

/**
 * Reports `ollie.sessions.active` and `ollie.agents.active` (by `ollie.agent.state`) from `read` at each
 * collection; returns the function that stops it.
 */
export function observeActivity(scope: string, read: () => Activity): () => void {
  const meter = metrics.getMeterProvider().getMeter(scope, GENAI_SEMCONV_VERSION);
  const sessions = meter.createObservableUpDownCounter(METRIC.activeSessions, {
    unit: "{session}",
    description: "Sessions open in the daemon",
  });
  const agents = meter.createObservableUpDownCounter(METRIC.activeAgents, {
    unit: "{agent}",
    description: "Agents in the daemon, by state",
  });
  // One read per collection for both instruments: a read walks every session.
  const observe = (result: BatchObservableResult) => {
    const activity = read();
    result.observe(sessions, activity.sessions);
    for (const [state, count] of activity.agentsByState)
      result.observe(agents, count, { "ollie.agent.state": state });
  };
  meter.addBatchObservableCallback(observe, [sessions, agents]);
  return () => meter.removeBatchObservableCallback(observe, [sessions, agents]);
}
