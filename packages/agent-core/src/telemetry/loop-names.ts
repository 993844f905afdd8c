// Span event and attribute names only the agent loop emits, beside @ollie/telemetry's shared ones (ATTR).

export const LOOP_EVENT = {
  /** A model request's failed attempt, about to be tried again. */
  retry: "ollie.retry",
  /** The safety monitor put a nudge before the model. */
  safetyNudge: "ollie.safety.nudge",
  /** The safety monitor stopped the turn. */
  safetyStop: "ollie.safety.stop",
  /** The turn used its last step: the model is asked for an answer without tools. */
  maxSteps: "ollie.maxsteps",
} as const;

export const LOOP_ATTR = {
  retryMaxAttempts: "ollie.retry.max_attempts",
  hookWarnings: "ollie.hook.warnings",
  /** Why the spending gate refused a compaction's summary request. */
  compactionRefusal: "ollie.compaction.refusal",
  safetyReason: "ollie.safety.reason",
  /** A nudge's words (they may quote what the agent did): only when contents are captured. */
  safetyMessage: "ollie.safety.message",
} as const;

/** `error.type` of a model request or tool call the turn's interruption (or a budget stop) cut short. */
export const INTERRUPTED = "interrupted";
