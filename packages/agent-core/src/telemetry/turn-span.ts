// The `invoke_agent` span of a turn: a prompt's turn with its postTurn hook and the continuations a block
// asks for. A turn runs after the prompt was submitted, in whatever async context drains the queue, so its
// parent is the context captured at submit time, not the one active when it runs.

import {
  ATTR,
  contextFromCarrier,
  OPERATION,
  providerName,
  recordFailure,
  type TraceCarrier,
} from "@ollie/telemetry";
import {
  type Attributes,
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { SubmitOptions } from "../agent/submit-options.js";
import type { TurnOutcome } from "../events/turn-outcome.js";
import type { Runtime } from "../runtime/runtime.js";
import { agentInstruments, agentTracer, failureType, metricsLive, tracingLive } from "./agent-telemetry.js";

/** Where a turn's span belongs: its parent and links, captured when its prompt was submitted. */
export interface TurnTrace {
  parent: Context;
  links?: Link[];
  /** Told the turn's span once it has started, when it is recorded. */
  started?: (span: SpanContext) => void;
}

/** Text injected too late for its turn runs as a turn of its own, at the root of a trace of its own. */
export const INJECTED_TURN: TurnTrace = { parent: ROOT_CONTEXT };

const isCarrier = (parent: Context | TraceCarrier): parent is TraceCarrier =>
  typeof (parent as Partial<TraceCarrier>).traceparent === "string";

/** Where the turn of a prompt submitted now, with `options`, belongs. */
export function turnTraceOf(options: SubmitOptions | undefined): TurnTrace {
  const given = options?.parent;
  const parent =
    given === undefined ? context.active() : isCarrier(given) ? contextFromCarrier(given) : given;
  return options?.links?.length ? { parent, links: [...options.links] } : { parent };
}

/** What the turn's span says of the agent. */
export interface TracedAgent {
  readonly id: string;
  readonly name: string;
  readonly profile: string | undefined;
  readonly sessionId: string;
  readonly runtime: Runtime;
}

/** The sums over a prompt's turns (the first and its continuations). */
class TurnTally {
  steps = 0;
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheCreation = 0;
  cost = 0;

  add(o: TurnOutcome): void {
    this.steps += o.steps;
    this.input += o.usage.inputTokens;
    this.output += o.usage.outputTokens;
    this.cacheRead += o.usage.cachedInputTokens;
    this.cacheCreation += o.usage.cacheCreationTokens;
    this.cost += o.usage.costUsd;
  }
}

const ignore = () => {};

/** `error.type` of a turn that failed: what ended it (a backend's failure, the safety monitor's stop). */
const outcomeErrorType = (o: TurnOutcome): string | undefined =>
  o.status === "error" || o.status === "handled" ? failureType(o.error) : undefined;

/**
 * Runs a prompt's turns (`run`, which reports each turn's outcome to `seen`) in an `invoke_agent` span under
 * `where`, current for them, so that their requests, tool calls, hooks and compactions nest inside; records
 * the turn's duration.
 */
export async function invokeAgent(
  a: TracedAgent,
  where: TurnTrace,
  run: (seen: (outcome: TurnOutcome) => void) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  const tracing = tracingLive();
  const measuring = metricsLive();
  // Untraced and unmeasured, the turn runs as it would without telemetry, under the context it was given.
  if (!tracing && !measuring) return context.with(where.parent, () => run(ignore));
  const started = performance.now();
  const backend = a.runtime.backend;
  const common: Attributes = {
    [ATTR.operationName]: OPERATION.invokeAgent,
    [ATTR.providerName]: providerName(backend.provider),
    [ATTR.requestModel]: backend.model,
  };
  if (a.profile !== undefined) common[ATTR.agentName] = a.profile;
  const span = agentTracer().startSpan(
    a.profile === undefined ? OPERATION.invokeAgent : `${OPERATION.invokeAgent} ${a.profile}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        ...common,
        [ATTR.conversationId]: a.sessionId,
        [ATTR.agent]: a.name,
        [ATTR.agentId]: a.id,
        [ATTR.backend]: backend.name,
      },
      ...(where.links && { links: where.links }),
    },
    where.parent,
  );
  const tally = span.isRecording() ? new TurnTally() : undefined;
  if (tally) where.started?.(span.spanContext());
  let errorType: string | undefined;
  try {
    const outcome = await context.with(trace.setSpan(where.parent, span), () =>
      run(tally ? (o) => tally.add(o) : ignore),
    );
    errorType = outcomeErrorType(outcome);
    if (tally) describeTurn(span, outcome, tally, errorType);
    return outcome;
  } catch (error) {
    // runTurn never throws; a hook's or the code's own bug may.
    errorType = failureType(error);
    recordFailure(span, error, errorType);
    throw error;
  } finally {
    span.end();
    if (measuring) {
      if (errorType !== undefined) common[ATTR.errorType] = errorType;
      agentInstruments().invokeAgentDuration.record((performance.now() - started) / 1000, common);
    }
  }
}

function describeTurn(
  span: Span,
  outcome: TurnOutcome,
  tally: TurnTally,
  errorType: string | undefined,
): void {
  span.setAttributes({
    [ATTR.turnStatus]: outcome.status,
    [ATTR.turnSteps]: tally.steps,
    [ATTR.usageInputTokens]: tally.input,
    [ATTR.usageOutputTokens]: tally.output,
    [ATTR.usageCacheReadInputTokens]: tally.cacheRead,
    [ATTR.usageCacheCreationInputTokens]: tally.cacheCreation,
    [ATTR.costUsd]: tally.cost,
  });
  if (errorType === undefined) return;
  span.setAttribute(ATTR.errorType, errorType);
  const error = (outcome as { error?: unknown }).error;
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
