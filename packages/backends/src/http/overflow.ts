/**
 * Context-overflow messages of the providers and servers in use (checked in order, case-insensitive).
 * Matching text is a last resort: a status, a code or an error type decides first where there is one.
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /prompt is too long/i,
  /input length and .?max_tokens.? exceed context limit/i,
  /exceeds the context window/i,
  /context_length_exceeded/i,
  /input token count.*exceeds the maximum/i,
  /maximum context length is \d+ tokens/i,
  /model's context length is only \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /prompt is longer than the context length/i,
  /input length exceeds the context length/i,
  /exceeds maximum context length/i,
  /exceeds the limit of \d+/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /too large for model with \d+ maximum context length/i,
  /input is too long for requested model/i,
  /context[_ ]length[_ ]exceeded/i,
  /token limit exceeded/i,
];

export function isOverflowMessage(message: string): boolean {
  return OVERFLOW_PATTERNS.some((re) => re.test(message));
}

const TOOL_UNSUPPORTED_PATTERNS: readonly RegExp[] = [
  /does not support tools/i,
  /"auto" tool choice requires --enable-auto-tool-choice/i,
  /tools param requires --jinja/i,
  /unsupported param: tools/i,
  /function calling is not enabled/i,
  /tools is not supported in this model/i,
];

export function isToolUnsupportedMessage(message: string): boolean {
  return TOOL_UNSUPPORTED_PATTERNS.some((re) => re.test(message));
}
