import type { RMessage, TMessage } from "../codec/types.js";

/** A request as the caller gives it: any T-message, its tag chosen by the client. */
export type Request = TMessage extends infer T ? (T extends TMessage ? Omit<T, "tag"> : never) : never;

/** A request sent and not yet answered, with its caller's promise. */
export interface Pending {
  request: Request;
  resolve(reply: RMessage): void;
  reject(err: unknown): void;
  /** Set once a Tflush for this request is on its way: its reply is then only cleaned up after. */
  flushed: boolean;
}

/** What an aborted request rejects with: the signal's reason, or an AbortError. */
export function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
