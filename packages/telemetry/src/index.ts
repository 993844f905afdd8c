// The public face of @ollie/telemetry: what Ollie's libraries instrument with. It needs only
// @opentelemetry/api, so everything here is a no-op until an application registers an SDK (a daemon does with
// @ollie/telemetry/sdk; any other application may register its own).

export {
  CONTENT_LIMIT,
  captureMessageContent,
  setCaptureMessageContent,
  truncateContent,
} from "./content.js";
export { type Activity, type OllieInstruments, observeActivity, ollieInstruments } from "./instruments.js";
export { ATTR, BUCKETS, GENAI_SEMCONV_VERSION, METRIC, OPERATION, providerName } from "./semconv.js";
export { errorTypeOf, inSpan, ollieTracer, recordFailure, type SpanOptions } from "./spans.js";
export {
  carrierFromEnv,
  contextFromCarrier,
  isTraceparent,
  linkFromCarrier,
  parseTraceparent,
  type TraceCarrier,
  traceCarrierOf,
  traceEnv,
} from "./trace-context.js";
