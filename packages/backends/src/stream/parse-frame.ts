import { type ErrorSource, TransientError } from "../errors.js";

/**
 * One frame of a provider's stream as JSON. A frame that does not parse is a TransientError quoting its
 * start (`what` names it: stream data, a stream line): the stream is broken, and the request is worth retrying.
 */
export function parseFrame<T>(source: ErrorSource, text: string, what = "stream data"): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new TransientError({ ...source, providerMessage: `unreadable ${what}: ${text.slice(0, 200)}` });
  }
}
