import type { AssistantMessage, BackendError } from "@ollie/backends";
import { describe, expectTypeOf, it } from "vitest";
import type { Submission } from "../agent/submission.js";
import type { UsageTotals } from "../history/usage-meter.js";
import type { SafetyStopError } from "../loop/safety.js";
import type { StopNotice } from "./stop-notice.js";
import type { TurnError, TurnOutcome, TurnStatus } from "./turn-outcome.js";

declare const outcome: TurnOutcome;

describe("a turn's outcome", () => {
  it("is what a submission resolves to", () => {
    expectTypeOf<Awaited<Submission>>().toEqualTypeOf<TurnOutcome>();
  });

  it("has the statuses of TurnStatus, and the common fields on every one", () => {
    expectTypeOf<TurnStatus>().toEqualTypeOf<
      "done" | "interrupted" | "maxsteps" | "error" | "handled" | "blocked" | "budget"
    >();
    expectTypeOf(outcome.status).toEqualTypeOf<TurnStatus>();
    expectTypeOf(outcome.steps).toEqualTypeOf<number>();
    expectTypeOf(outcome.usage).toEqualTypeOf<UsageTotals>();
    expectTypeOf(outcome.reply).toEqualTypeOf<AssistantMessage | undefined>();
    expectTypeOf(outcome.stop).toEqualTypeOf<StopNotice | undefined>();
  });

  it("carries its typed error on error, and nowhere else but handled", () => {
    expectTypeOf<TurnError>().toEqualTypeOf<BackendError | SafetyStopError>();
    if (outcome.status === "error") expectTypeOf(outcome.error).toEqualTypeOf<TurnError>();
    if (outcome.status === "handled") expectTypeOf(outcome.error).toEqualTypeOf<BackendError>();
    if (outcome.status === "done") {
      // @ts-expect-error a turn that is done has no error
      outcome.error;
    }
    // @ts-expect-error the error is read once the status says there is one
    outcome.error;
  });

  it("carries a reply when done or at the step limit, with the limit", () => {
    if (outcome.status === "done") expectTypeOf(outcome.reply).toEqualTypeOf<AssistantMessage>();
    if (outcome.status === "maxsteps") {
      expectTypeOf(outcome.reply).toEqualTypeOf<AssistantMessage>();
      expectTypeOf(outcome.maxSteps).toEqualTypeOf<number>();
    }
    if (outcome.status === "error") {
      // @ts-expect-error only maxsteps says the limit
      outcome.maxSteps;
    }
  });

  it("carries the partial text when interrupted", () => {
    if (outcome.status === "interrupted") expectTypeOf(outcome.partial).toEqualTypeOf<string>();
    if (outcome.status === "done") {
      // @ts-expect-error only an interrupted turn has a partial reply
      outcome.partial;
    }
  });

  it("carries the hook's reason when blocked, and no reply nor stop notice", () => {
    if (outcome.status === "blocked") {
      expectTypeOf(outcome.reason).toEqualTypeOf<string>();
      expectTypeOf(outcome.reply).toEqualTypeOf<undefined>();
      expectTypeOf(outcome.stop).toEqualTypeOf<undefined>();
      // @ts-expect-error a refusal is not an error
      outcome.error;
    }
    if (outcome.status === "budget") {
      expectTypeOf(outcome.reason).toEqualTypeOf<string>();
      // @ts-expect-error a spent budget is not an error
      outcome.error;
    }
  });

  it("narrows in a switch, exhaustively", () => {
    const said = (o: TurnOutcome): string => {
      switch (o.status) {
        case "done":
          return o.reply.content;
        case "interrupted":
          return o.partial;
        case "maxsteps":
          return `${o.maxSteps}`;
        case "error":
        case "handled":
          return o.error.message;
        case "blocked":
        case "budget":
          return o.reason;
        default:
          expectTypeOf(o).toBeNever();
          return "";
      }
    };
    expectTypeOf(said).returns.toEqualTypeOf<string>();
  });
});
