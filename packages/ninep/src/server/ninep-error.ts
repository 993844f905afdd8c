/**
 * An error whose message is the Rerror text sent to the client. `errno` is what a 9P2000.L client is told
 * (Rlerror): give it where the error is made, since the words are lost on such a client. Without one, the
 * errno is its `cause`'s (a system error's `code`, another error's errno), else found as errnoOf says.
 */
export class NinepError extends Error {
  override readonly name = "NinepError";
  readonly errno: number | undefined;
  constructor(message: string, options: { errno?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.errno = options.errno;
  }
}

/** The Rerror text for a request that failed with `err`. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === "AbortError") return "interrupted";
    return err.message || err.name;
  }
  return String(err);
}

/** Cuts an error text to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, "utf8") <= maxBytes) return s;
  const b = Buffer.from(s, "utf8");
  let end = maxBytes;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.toString("utf8", 0, end);
}

/** A refusal the engine makes: its text for 9P2000, its errno for 9P2000.L. */
export const refuse = (message: string, errno: number): NinepError => new NinepError(message, { errno });
