/** An error whose message is the Rerror text sent to the client. Throw it from a FileServer for clarity;
 * any other Error's message is sent the same way. `errno` is what a 9P2000.L client is told (Rlerror);
 * without it the engine finds one from the message (see the README's table). */
export class NinepError extends Error {
  override readonly name = "NinepError";
  readonly errno: number | undefined;
  constructor(message: string, options: { errno?: number } = {}) {
    super(message);
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
