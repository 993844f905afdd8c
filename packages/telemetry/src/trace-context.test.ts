import { context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import {
  carrierFromEnv,
  contextFromCarrier,
  isTraceparent,
  linkFromCarrier,
  parseTraceparent,
  traceCarrierOf,
  traceEnv,
} from "./trace-context.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const SAMPLED = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe("parseTraceparent", () => {
  it("reads a version 00 traceparent and its tracestate", () => {
    const spanContext = parseTraceparent(SAMPLED, "vendor=abc,other=1");
    expect(spanContext).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(spanContext?.traceState?.get("vendor")).toBe("abc");
  });

  it.each([
    ["uppercase hex", `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ["version ff", `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN_ID}-01`],
    ["an all-zero span id", `00-${TRACE_ID}-${"0".repeat(16)}-01`],
    ["more after a version 00", `${SAMPLED}-extra`],
    ["a short trace id", `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ["nothing", ""],
  ])("refuses %s", (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(isTraceparent(value)).toBe(false);
  });

  it("reads the known fields of a later version and ignores what follows", () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01-whatever`)).toMatchObject({ traceId: TRACE_ID });
  });

  it("drops a tracestate over the specification's 512 characters", () => {
    expect(parseTraceparent(SAMPLED, `a=${"x".repeat(600)}`)?.traceState).toBeUndefined();
  });
});

describe("carriers", () => {
  it("round-trips a sampled span context through a carrier and an environment", () => {
    const ctx = contextFromCarrier({ traceparent: SAMPLED, tracestate: "k=v" });
    const carrier = traceCarrierOf(ctx);
    expect(carrier).toEqual({ traceparent: SAMPLED, tracestate: "k=v" });
    expect(traceEnv(carrier)).toEqual({ TRACEPARENT: SAMPLED, TRACESTATE: "k=v" });
    expect(carrierFromEnv(traceEnv(carrier))).toEqual(carrier);
  });

  it("carries nothing for an unsampled span or none", () => {
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.NONE,
    });
    expect(traceCarrierOf(unsampled)).toBeUndefined();
    expect(traceCarrierOf(context.active())).toBeUndefined();
    expect(traceEnv(undefined)).toEqual({});
  });

  it("ignores an invalid carrier, keeping the base context", () => {
    expect(contextFromCarrier({ traceparent: "00-zz" })).toBe(ROOT_CONTEXT);
    expect(carrierFromEnv({ TRACEPARENT: "garbage" })).toBeUndefined();
    expect(linkFromCarrier({ traceparent: "garbage" })).toBeUndefined();
  });

  it("links to a carrier's span with attributes", () => {
    expect(linkFromCarrier({ traceparent: SAMPLED }, { "ollie.link": "callback" })).toMatchObject({
      context: { traceId: TRACE_ID, spanId: SPAN_ID },
      attributes: { "ollie.link": "callback" },
    });
  });
});
