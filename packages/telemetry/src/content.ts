// Whether message contents (prompts, replies, tool arguments and results) go on spans. Off unless asked for:
// they hold whatever the user and the tools wrote. The GenAI conventions' opt-in flag is the environment
// variable; a daemon's configuration may also turn it on (setCaptureMessageContent).

const CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
/** Longer contents are cut to this many characters, saying so: a span is not a transcript. */
export const CONTENT_LIMIT = 16_384;

let configured: boolean | undefined;
/** The environment variable's word, read once: it is asked at every traced request and call. */
let fromEnv: boolean | undefined;

/** Turns capture on or off for this process, over the environment variable; undefined defers to it again. */
export function setCaptureMessageContent(capture: boolean | undefined): void {
  configured = capture;
}

/** Whether contents are captured: as set, else as the environment variable said when first asked. */
export function captureMessageContent(): boolean {
  if (configured !== undefined) return configured;
  fromEnv ??= process.env[CAPTURE_ENV]?.trim().toLowerCase() === "true";
  return fromEnv;
}

/** `text` cut to CONTENT_LIMIT characters, with the count of what was left off. */
export function truncateContent(text: string): string {
  if (text.length <= CONTENT_LIMIT) return text;
  return `${text.slice(0, CONTENT_LIMIT)}… [${text.length - CONTENT_LIMIT} more characters]`;
}
