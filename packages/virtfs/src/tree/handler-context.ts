import type { RequestContext } from "@ollie/ninep";
import type { ReadContext, StatContext, WriteContext } from "../spec/context.js";
import type { OpenFile, TreeFid } from "./tree-fid.js";

const EMPTY = Buffer.alloc(0);

/**
 * What file handlers receive (FileContext, ReadContext and WriteContext in one shape). The signal is only
 * made if a handler reads it.
 */
export class HandlerContext implements ReadContext, WriteContext {
  readonly uname: string;
  readonly mode: number;
  readonly state: unknown;
  readonly data: Buffer;
  readonly #req: RequestContext<TreeFid>;

  constructor(
    req: RequestContext<TreeFid>,
    open: OpenFile,
    readonly offset: number,
    readonly count: number,
    data: Buffer | undefined,
  ) {
    this.#req = req;
    this.uname = req.fid.uname;
    this.mode = open.mode;
    this.state = open.state;
    this.data = data ?? EMPTY;
  }

  get signal(): AbortSignal {
    return this.#req.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return this.#req.onAbort(listener);
  }
}

/** What a file's `length` receives. The signal is only made if it is read. */
export class StatAsked implements StatContext {
  readonly uname: string;
  readonly #req: RequestContext<TreeFid>;

  constructor(
    req: RequestContext<TreeFid>,
    /** The open's state, for a stat of an open fid. */
    readonly state: unknown,
  ) {
    this.#req = req;
    this.uname = req.fid.uname;
  }

  get signal(): AbortSignal {
    return this.#req.signal;
  }
}
