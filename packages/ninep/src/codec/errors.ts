/**
 * A frame that does not follow 9P2000. `tag` is set when the frame's header could be read, so a server can
 * answer the offending request with Rerror instead of dropping the connection.
 */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  readonly tag: number | undefined;
  constructor(message: string, tag?: number) {
    super(message);
    this.tag = tag;
  }
}
