import type { Duplex } from "node:stream";
import { IOHDRSZ, NOTAG } from "../codec/constants.js";
import { type Dialect, decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { ProtocolError } from "../codec/errors.js";
import { formatMessage } from "../codec/format.js";
import { FrameReader } from "../codec/frame-reader.js";
import { Errno } from "../codec/linux/constants.js";
import type { Message, RMessage, TMessage, Tversion } from "../codec/types.js";
import { WriteBatcher } from "../transport/write-batcher.js";
import type { ConnectionContext, ConnectionOptions } from "./connection-context.js";
import { ConnectionDroppedError } from "./connection-errors.js";
import type { FidState } from "./fid-state.js";
import type { FileServer } from "./file-server.js";
import { errnoOf } from "./linux/errno.js";
import { errorText, NinepError, truncateUtf8 } from "./ninep-error.js";
import { PendingRequest } from "./pending-request.js";
import { RequestHandlers } from "./request-handlers.js";
import { negotiateVersion } from "./version.js";

/** How long a client that broke the protocol has to take the replies it was already owed. */
const FAILED_CONNECTION_GRACE_MS = 2000;

/** Frames dispatched per turn of the event loop. */
const DISPATCH_BATCH = 32;

/**
 * One client's 9P session over a byte stream: framing, version negotiation, the tag table, flush and reply
 * ordering, back-pressure and cleanup. The per-message work lives in RequestHandlers.
 */
export class Connection<A = unknown> implements ConnectionContext<A> {
  msize: number;
  negotiated = false;
  /** What Tversion settled: 9P2000.L answers errors with Rlerror and has messages of its own. */
  dialect: Dialect = "9P2000";
  readonly tags = new Map<number, PendingRequest>();
  readonly fids = new Map<number, FidState<A>>();
  private readonly reader: FrameReader;
  private readonly batch: WriteBatcher;
  private readonly handlers: RequestHandlers<A>;
  private waitingForDrain = false;
  /** Stopped reading because `maxRequestsInFlight` requests wait for their replies. */
  private waitingForReplies = false;
  /** A fid was attached on this session: the message size limit of an unattached connection is lifted. */
  private attached = false;
  private attachDeadline: NodeJS.Timeout | undefined;
  private pumpScheduled = false;
  /** The client shut down its side: answer what it sent, then end ours. */
  private inputEnded = false;
  private closed = false;
  private readonly closeListeners: Array<() => void> = [];

  /** Who is at the other end, as far as the transport knows (`tcp!HOST!PORT`, `unix`, or `stream`). */
  get peer(): string {
    const s = this.socket as Duplex & { remoteAddress?: string; remotePort?: number };
    if (s.remoteAddress) return `tcp!${s.remoteAddress}!${s.remotePort ?? 0}`;
    return "remoteAddress" in s ? "unix" : "stream";
  }

  constructor(
    private readonly socket: Duplex,
    fs: FileServer<A>,
    readonly options: ConnectionOptions,
  ) {
    this.msize = options.maxMsize;
    this.reader = new FrameReader(options.maxMsize);
    this.limitFrames();
    if (options.limits.attachDeadlineMs > 0) {
      this.attachDeadline = setTimeout(() => {
        options.onError?.(
          new ConnectionDroppedError(
            this.who,
            `no attach within ${options.limits.attachDeadlineMs / 1000} s`,
          ),
        );
        this.close();
      }, options.limits.attachDeadlineMs);
      this.attachDeadline.unref();
    }
    this.batch = new WriteBatcher(socket);
    this.handlers = new RequestHandlers(this, fs);
    socket.on("data", (chunk: Buffer) => {
      // Nothing more is buffered for a connection that has ended (its socket may still be draining).
      if (this.closed) return;
      this.reader.push(chunk);
      this.pump();
    });
    socket.on("drain", () => {
      if (!this.waitingForDrain || this.closed) return;
      this.waitingForDrain = false;
      socket.resume();
      this.pump();
    });
    socket.on("end", () => {
      this.inputEnded = true;
      this.pump();
    });
    socket.on("error", () => this.shutdown());
    socket.on("close", () => this.shutdown());
    // A stream paused before it got here (Node pauses a socket it hands to a child process, as identifying
    // its peer may) must flow now that someone reads it.
    socket.resume();
  }

  /** Bytes of payload a single Tread/Twrite may carry. */
  get maxIo(): number {
    return this.msize - IOHDRSZ;
  }

  /** Reply bytes accepted for writing but not yet handed to the operating system. */
  get bufferedOutput(): number {
    return this.socket.writableLength;
  }

  /** A fid was attached: the connection may send full-size messages and has no deadline any more. */
  markAttached(): void {
    if (this.attached) return;
    this.attached = true;
    clearTimeout(this.attachDeadline);
    this.limitFrames();
  }

  /**
   * Sets the largest message the client may send now: before its Tversion is answered a few KiB
   * (`maxMessageBeforeVersion`), then until it attaches `maxMessageBeforeAttach`, then the msize — each
   * no more than the msize. A larger size field ends the connection before the message's body is read.
   */
  private limitFrames(): void {
    const { maxMessageBeforeVersion, maxMessageBeforeAttach } = this.options.limits;
    const limits: Array<[string, number]> = [["msize", this.msize]];
    if (!this.attached) limits.push(["maxMessageBeforeAttach", maxMessageBeforeAttach]);
    if (!this.attached && !this.negotiated) limits.push(["maxMessageBeforeVersion", maxMessageBeforeVersion]);
    const [name, max] = limits.reduce((a, b) => (b[1] < a[1] ? b : a));
    this.reader.maxSize = max;
    this.reader.limitName = name;
  }

  /** The peer as messages name it: the key the connection limits know it by, else the transport's name. */
  private get who(): string {
    return this.options.peerKey ?? this.peer;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Drops the connection; every request is aborted and every fid clunked. */
  close(): void {
    this.socket.destroy();
    this.shutdown();
  }

  /** Sends a reply for a request that is done, then the Rflush of every Tflush that waited on it. */
  respond(req: PendingRequest, reply: RMessage): void {
    if (req.discarded || this.tags.get(req.tag) !== req) return;
    this.tags.delete(req.tag);
    this.send(reply);
    for (const flush of req.flushes ?? []) this.respond(flush, { type: "Rflush", tag: flush.tag });
    if (this.inputEnded) this.endIfIdle();
    if (this.waitingForReplies && this.tags.size < this.options.limits.maxRequestsInFlight) {
      this.waitingForReplies = false;
      this.socket.resume();
      this.pump();
    }
  }

  respondError(req: PendingRequest, err: unknown): void {
    this.respond(req, this.errorReply(req.tag, err));
  }

  /** Rerror with the error's text, or in 9P2000.L Rlerror with its errno (see errnoOf). */
  private errorReply(tag: number, err: unknown): RMessage {
    if (this.dialect === "9P2000.L") return { type: "Rlerror", tag, ecode: errnoOf(err) };
    return { type: "Rerror", tag, ename: this.fitError(errorText(err)) };
  }

  /** Ends the session's state as Tversion and disconnection require: aborts and discards every pending
   * request (their replies are never sent) and clunks every fid. */
  reset(reason: string): void {
    for (const req of this.tags.values()) {
      req.discarded = true;
      req.abort(reason);
    }
    this.tags.clear();
    for (const f of this.fids.values()) {
      for (const req of f.inflight) req.abort(reason);
      // A pending fid still belongs to the attach or walk creating it, which releases it on completion.
      if (!f.pending) this.handlers.fids.release(f);
    }
    this.fids.clear();
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.attachDeadline);
    this.reset("connection closed");
    for (const l of this.closeListeners.splice(0)) l();
  }

  /**
   * Dispatches received frames. Frames are taken in batches, with a turn of the event loop between batches so
   * that the replies of quick requests are written and counted before more are accepted. Replies queue for a
   * client that writes its requests before it reads any reply (as pipelining clients do), up to
   * `maxQueuedReplyBytes`; past that, or with `maxRequestsInFlight` requests unanswered, nothing is taken
   * and the socket is not read until the client catches up. Together these bound what a client that does
   * not read its replies can make the server hold.
   */
  private pump(): void {
    let budget = DISPATCH_BATCH;
    const limits = this.options.limits;
    while (!this.closed) {
      if (this.socket.writableLength > limits.maxQueuedReplyBytes) {
        this.waitingForDrain = true;
        this.socket.pause();
        return;
      }
      if (this.tags.size >= limits.maxRequestsInFlight) {
        this.waitingForReplies = true;
        this.socket.pause();
        return;
      }
      if (budget-- === 0) {
        if (!this.pumpScheduled) {
          this.pumpScheduled = true;
          setImmediate(() => {
            this.pumpScheduled = false;
            this.pump();
          });
        }
        return;
      }
      let frame: Buffer | null;
      try {
        frame = this.reader.next();
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      if (!frame) {
        if (this.inputEnded) this.hangUp();
        return;
      }
      this.dispatch(frame);
    }
  }

  /** After the client's last request: abort what still waits (it can never be asked for again), send the
   * remaining replies, and end the stream. */
  private hangUp(): void {
    if (this.reader.pending > 0) {
      this.fail(new Error("connection ended inside a message"));
      return;
    }
    for (const req of this.tags.values()) req.abort("connection closed");
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (this.inputEnded && this.tags.size === 0 && !this.closed && this.reader.pending === 0)
      this.socket.end();
  }

  /**
   * Ends a connection whose byte stream cannot be followed any more: nothing more is kept of what the
   * client sends, replies already made are still delivered, everything pending is aborted, and the stream
   * is destroyed if the client will not take them. A client that has not attached is owed a reply or two
   * at most, written at once if they are written at all: its connection is closed now, so that not one more
   * chunk of what it sends is read.
   */
  private fail(err: Error): void {
    this.options.onError?.(new ConnectionDroppedError(this.who, err.message, { cause: err }));
    this.shutdown();
    this.reader.clear();
    this.batch.flush();
    if (!this.attached) {
      this.socket.destroy();
      return;
    }
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), FAILED_CONNECTION_GRACE_MS);
    this.socket.once("close", () => clearTimeout(timer));
  }

  private dispatch(frame: Buffer): void {
    let msg: Message;
    try {
      msg = decodeMessage(frame, this.dialect);
    } catch (err) {
      if (err instanceof ProtocolError && err.tag !== undefined) {
        this.send(this.errorReply(err.tag, new NinepError(err.message, { errno: Errno.EPROTO })));
      } else {
        this.fail(err as Error);
      }
      return;
    }
    this.options.trace?.(`<- ${formatMessage(msg, { maxData: 64 })}`);
    if (msg.type === "Tversion") {
      this.version(msg);
      return;
    }
    const tag = msg.tag;
    const refuse = (text: string) =>
      this.send(this.errorReply(tag, new NinepError(text, { errno: Errno.EPROTO })));
    if (msg.type[0] !== "T") {
      refuse(`unexpected message ${msg.type}`);
      return;
    }
    if (!this.negotiated) {
      refuse("Tversion must come first");
      return;
    }
    if (tag === NOTAG) {
      refuse("NOTAG is only for Tversion");
      return;
    }
    if (this.tags.has(tag)) {
      refuse("duplicate tag");
      return;
    }
    const req = new PendingRequest(tag);
    this.tags.set(tag, req);
    this.handlers.run(req, msg as Exclude<TMessage, Tversion>);
  }

  private version(m: Tversion): void {
    this.reset("session reset by Tversion");
    const outcome = negotiateVersion(m.version, m.msize, this.options.maxMsize);
    if ("error" in outcome) {
      this.negotiated = false;
      this.limitFrames();
      this.send({ type: "Rerror", tag: m.tag, ename: outcome.error });
      return;
    }
    this.negotiated = outcome.version !== "unknown";
    this.dialect = outcome.version === "9P2000.L" ? "9P2000.L" : "9P2000";
    if (this.negotiated) this.msize = outcome.msize;
    this.limitFrames();
    this.send({ type: "Rversion", tag: m.tag, msize: outcome.msize, version: outcome.version });
  }

  private fitError(text: string): string {
    return truncateUtf8(text, this.msize - 9);
  }

  private send(m: RMessage): void {
    if (this.closed) return;
    this.options.trace?.(`-> ${formatMessage(m, { maxData: 64 })}`);
    this.batch.write(encodeMessage(m));
  }
}
