import { TraceFlags } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { callbackTrace, spawnedTurnTrace } from "./spawn-trace.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const carrier = { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` };
const turnOf = (traceId: string) => ({ traceId, spanId: "1111111111111111", traceFlags: TraceFlags.SAMPLED });

describe("a spawned session's first turn", () => {
  it("joins the spawner's trace when the traceparent is its running turn's", () => {
    expect(spawnedTurnTrace(carrier, turnOf(TRACE), false)).toEqual({ parent: carrier });
  });

  it("believes the owner's traceparent", () => {
    expect(spawnedTurnTrace(carrier, undefined, true)).toEqual({ parent: carrier });
  });

  it("only links to a traceparent of another trace, or from an agent whose turn is not traced", () => {
    for (const spawning of [turnOf("0af7651916cd43dd8448eb211c80319c"), undefined]) {
      expect(spawnedTurnTrace(carrier, spawning, false)).toEqual({
        links: [
          {
            context: expect.objectContaining({ traceId: TRACE, spanId: "00f067aa0ba902b7", isRemote: true }),
            attributes: { "ollie.link": "spawn" },
          },
        ],
      });
    }
  });

  it("ignores an invalid traceparent", () => {
    expect(spawnedTurnTrace({ traceparent: "00-nothing" }, undefined, true)).toBeUndefined();
  });
});

describe("a callback's turn", () => {
  it("links to the reported turn when it was recorded", () => {
    const turn = turnOf(TRACE);
    expect(callbackTrace(turn)).toEqual({
      links: [{ context: turn, attributes: { "ollie.link": "callback" } }],
    });
    expect(callbackTrace(undefined)).toBeUndefined();
  });
});
