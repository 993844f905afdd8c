// What the loop notes on the turn's span as it goes: the safety monitor's nudges and stops, the last step.

import { ATTR, captureMessageContent } from "@ollie/telemetry";
import { trace } from "@opentelemetry/api";
import { LOOP_ATTR, LOOP_EVENT } from "./loop-names.js";

/** The span current between a turn's requests and calls: the turn's own. */
const turnSpan = () => {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
};

/** The safety monitor nudged the model; its words only when contents are captured (they quote actions). */
export function noteNudge(message: string): void {
  turnSpan()?.addEvent(
    LOOP_EVENT.safetyNudge,
    captureMessageContent() ? { [LOOP_ATTR.safetyMessage]: message } : undefined,
  );
}

/** The safety monitor stopped the turn, for `reason` (Ollie's words: counts and a tool's name). */
export function noteSafetyStop(reason: string): void {
  turnSpan()?.addEvent(LOOP_EVENT.safetyStop, { [LOOP_ATTR.safetyReason]: reason });
}

/** The turn used its last step after `steps` rounds. */
export function noteMaxSteps(steps: number): void {
  turnSpan()?.addEvent(LOOP_EVENT.maxSteps, { [ATTR.turnSteps]: steps });
}
