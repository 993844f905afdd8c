/**
 * olliesrv could not be dialled at `address`: `code` is the system's reason (`ENOENT`: no socket there;
 * `ECONNREFUSED`: nothing listens on it; undefined when the address itself is not one).
 */
export class DialError extends Error {
  override readonly name = "DialError";
  constructor(
    readonly address: string,
    readonly code: string | undefined,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach olliesrv at ${address} (${problem}); is it running?`, options);
  }

  /** Whether this says that no olliesrv runs there (rather than that the address is wrong). */
  get notRunning(): boolean {
    return this.code === "ENOENT" || this.code === "ECONNREFUSED";
  }
}

/**
 * olliesrv answered, but refused to attach `uname`: a wrong key, a uname it does not know, or a connection
 * it closed (a limit). `reason` is its words.
 */
export class AttachRefusedError extends Error {
  override readonly name = "AttachRefusedError";
  constructor(
    readonly address: string,
    readonly uname: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`olliesrv at ${address} refused to attach ${JSON.stringify(uname)}: ${reason}`, options);
  }
}

/**
 * The key that proves who the client is could not be read from `file` (`code` is the system's reason: ENOENT
 * when olliesrv has never started with this data directory, since it makes the owner key at its first start).
 */
export class KeyFileError extends Error {
  override readonly name = "KeyFileError";
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      code === undefined
        ? `the key file ${file} is empty`
        : `cannot read the owner key ${file} (${code}); olliesrv makes it at its first start`,
      options,
    );
  }
}

/**
 * olliesrv refused a request on `path` (a write it would not take, a file that is not there, a wait cut short
 * by a killed session): `reason` is its words exactly, written for a person. The message is `PATH: REASON`.
 */
export class RefusedError extends Error {
  override readonly name = "RefusedError";
  constructor(
    /** The file, from the root of olliesrv's namespace (`session/ID/agent/main/ctl`). */
    readonly path: string,
    readonly reason: string,
    /** The 9P request refused (`Twrite`, `Tread`, `Twalk`, `Tclunk`…). */
    readonly request: string,
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${reason}`, options);
  }
}

/** No session has the id or name `given` (in `session/idx`). */
export class NoSuchSessionError extends Error {
  override readonly name = "NoSuchSessionError";
  constructor(readonly given: string) {
    super(`no session ${JSON.stringify(given)}`);
  }
}

/**
 * A file of the namespace said something this client cannot read: an olliesrv of another version, most
 * likely. `text` is what it said (cut to 200 characters).
 */
export class ReplyFormatError extends Error {
  override readonly name = "ReplyFormatError";
  readonly text: string;
  constructor(
    readonly path: string,
    text: string,
    problem: string,
  ) {
    const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    super(`${path}: ${problem}: ${JSON.stringify(shown)}`);
    this.text = shown;
  }
}
