import type { AssistantMessage, StopReason } from "@ollie/backends";

/** A reply that ended in a way its reader must hear about, and what to do next. */
export interface StopNotice {
  reason: StopReason;
  /** The provider's own word for it. */
  raw?: string;
  /** What happened and the next step, for people. */
  message: string;
}

/** What each way of ending says, before the provider's word and the next step. */
const NOTICES: Partial<Record<StopReason, (limit: string) => string>> = {
  length: (limit) =>
    `the reply hit the output limit${limit} and was cut off; raise max_tokens in the agent's profile, or ask for a shorter answer`,
  content_filter: () =>
    "the provider's safety filter stopped the reply; rephrase the request or use another model",
  refusal: () => "the model declined to answer; rephrase the request or use another model",
  blocked: () => "the provider blocked the prompt before any reply; rephrase it or use another model",
  malformed_call: () =>
    "the model wrote a tool call the provider could not read, so nothing was run; prompt again (asking for one call at a time may help)",
  error: () => "the provider ended the reply with an error; prompt again",
  other: () => "the reply ended for a reason Ollie does not know",
};

/**
 * The notice for a reply's stop reason, or undefined when it ended normally: every way a reply can end
 * short — the output limit, a filter, a refusal, a blocked prompt, a malformed call, an empty reply — is
 * said, never passed over in silence.
 */
export function stopNotice(
  reason: StopReason,
  raw: string | undefined,
  reply: AssistantMessage,
  maxTokens: number | undefined,
): StopNotice | undefined {
  const said = reply.content.trim() !== "" || (reply.toolCalls?.length ?? 0) > 0;
  let message: string | undefined;
  if (reason === "stop" || reason === "tool_use") {
    if (said) return undefined;
    message = "the model returned an empty reply; prompt again or use another model";
  } else {
    const limit = maxTokens === undefined ? "" : ` (max_tokens ${maxTokens})`;
    message = (NOTICES[reason] ?? NOTICES.other!)(limit);
  }
  if (raw !== undefined && raw !== "") message = `${message} [${raw}]`;
  return { reason, ...(raw !== undefined && { raw }), message };
}
