// Whether message contents (prompts, replies, tool arguments and results) go on spans. Off unless asked for:
// they hold whatever the user and the tools wrote. The GenAI conventions' opt-in flag is the environment
// variable; a daemon's configuration may also turn it on (setCaptureMessageContent).

const CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
/** Longer contents are cut to this many characters, saying so: a span is not a transcript. */
export const CONTENT_LIMIT = 16_384;

let configured: boolean | undefined;

/** Turns capture on or off for this process, over the environment variable; undefined defers to it again. */
export function setCaptureMessageContent(capture: boolean | undefined): void {
  configured = capture;
}

export function captureMessageContent(): boolean {
  return configured ?? process.env[CAPTURE_ENV]?.trim().toLowerCase() === "true";
}

/** `text` cut to CONTENT_LIMIT characters, with the count of what was left off. */
export function truncateContent(text: string): string {
  if (text.length <= CONTENT_LIMIT) return text;
  return `${text.slice(0, CONTENT_LIMIT)}… [${text.length - CONTENT_LIMIT} more characters]`;
}
