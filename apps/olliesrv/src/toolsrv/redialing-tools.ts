import type { ToolExecutor, ToolInfo, ToolResult } from "@ollie/agent-core";
import { ConnectionClosedError } from "@ollie/ninep";
import type { ToolsrvConn } from "@ollie/toolsrv/client";

/**
 * A tool call cut off because its toolsrv, or the way to it, was lost while it ran: the call did not finish,
 * and what it had started there ended with toolsrv (or with the connection). The next call dials again.
 */
export class ToolsrvLostError extends Error {
  override readonly name = "ToolsrvLostError";
  constructor(
    /** Which toolsrv: `toolsrv` (the daemon's own), `toolsrv at ADDRESS`, `toolsrv on HOST`. */
    readonly toolsrv: string,
    /** What happened (`killed by SIGKILL`, `ssh was ended by SIGKILL`, `connection closed by server`). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Dials the toolsrv at `address` for an agent, loading `loaded` (the tools it had) when it is a dial again. */
export type AddressDial = (address: string, loaded?: readonly string[]) => Promise<ToolsrvConn>;

/**
 * Where an agent's tools run, and how to reach them again: what RedialingTools needs of a toolsrv, whether
 * olliesrv's own (restarted when it dies), one it was given, or one on a remote host (started again at the
 * first use after the connection to the host was lost).
 */
export interface ToolsrvRoute {
  /** Dials toolsrv for the agent, loading `loaded` (the tools it had) when it is a dial again. */
  dial(loaded?: readonly string[]): Promise<ToolsrvConn>;
  /**
   * Why the connection the last dial made is dead, when it is known to be (its toolsrv ended, or the way to
   * it was lost) even though the connection may not have noticed yet; undefined while it may live.
   */
  lostReason(): string | undefined;
  /** The error a call ends with when its connection closed while it ran (`error` is how it closed). */
  lostCall(error: ConnectionClosedError): Promise<ToolsrvLostError>;
}

/**
 * An agent's tools: a ToolsrvConn to its toolsrv, dialled again at the first use after that connection was
 * lost, with the tools the agent had loaded. A call the loss cut off fails with ToolsrvLostError (the model
 * reads why); listing tools and reading their revision, which change nothing, are simply asked again on the
 * new connection (see revision for a toolsrv that cannot be reached). The same for the daemon's own toolsrv
 * (restarted by its supervisor) and a remote host's.
 */
export class RedialingTools implements ToolExecutor {
  #conn: ToolsrvConn | undefined;
  #dialing: Promise<ToolsrvConn> | undefined;
  #loaded: string[] | undefined;
  #revision: number | undefined;

  private constructor(private readonly route: ToolsrvRoute) {}

  /** Dials at once, so that a toolsrv that cannot be reached fails the agent's making, saying why. */
  static async open(route: ToolsrvRoute): Promise<RedialingTools> {
    const tools = new RedialingTools(route);
    await tools.connection();
    return tools;
  }

  /** The connection as it is now; undefined between a loss and the next use. */
  get current(): ToolsrvConn | undefined {
    return this.#conn;
  }

  private connection(): Promise<ToolsrvConn> {
    // Its toolsrv ended or the way to it was lost: a connection made before is dead, whether or not it has
    // noticed yet (a dial since then would have cleared the loss), so a call goes to a new one.
    if (this.#conn && this.route.lostReason() !== undefined) {
      void this.#conn.close().catch(() => {});
      this.#conn = undefined;
    }
    if (this.#conn) return Promise.resolve(this.#conn);
    this.#dialing ??= this.route.dial(this.#loaded).then(
      (conn) => {
        this.#conn = conn;
        this.#dialing = undefined;
        void conn.closed.then(() => {
          if (this.#conn === conn) this.#conn = undefined;
        });
        return conn;
      },
      (error: unknown) => {
        this.#dialing = undefined;
        throw error;
      },
    );
    return this.#dialing;
  }

  async list(signal?: AbortSignal): Promise<ToolInfo[]> {
    const tools = await this.again((conn) => conn.list(signal));
    this.#loaded = tools.map((t) => t.name);
    return tools;
  }

  /**
   * The tool set's revision (read before each model request). While toolsrv cannot be reached, the last one
   * read: the turn goes on with the tools it had, and a call of one fails, saying why.
   */
  async revision(signal?: AbortSignal): Promise<number> {
    try {
      this.#revision = await this.again((conn) => conn.revision(signal));
    } catch (error) {
      if (this.#conn || this.#revision === undefined || signal?.aborted) throw error;
    }
    return this.#revision;
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    return this.onLoss(
      (conn) => conn.call(name, args, signal),
      async (error) => {
        throw await this.route.lostCall(error);
      },
    );
  }

  /** Asks `ask` on the connection; when the connection turns out closed, forgets it and asks `lost`. */
  private async onLoss<T>(
    ask: (conn: ToolsrvConn) => Promise<T>,
    lost: (error: ConnectionClosedError) => Promise<T>,
  ): Promise<T> {
    const conn = await this.connection();
    try {
      return await ask(conn);
    } catch (error) {
      if (!(error instanceof ConnectionClosedError)) throw error;
      if (this.#conn === conn) this.#conn = undefined;
      return lost(error);
    }
  }

  private again<T>(ask: (conn: ToolsrvConn) => Promise<T>): Promise<T> {
    return this.onLoss(ask, async () => ask(await this.connection()));
  }

  async close(): Promise<void> {
    const conn = this.#conn ?? (await this.#dialing?.catch(() => undefined));
    this.#conn = undefined;
    await conn?.close();
  }
}
