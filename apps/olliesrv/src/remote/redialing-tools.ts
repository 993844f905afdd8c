import type { ToolExecutor, ToolInfo, ToolResult } from "@ollie/agent-core";
import { ConnectionClosedError } from "@ollie/ninep";
import type { ToolsrvConn } from "@ollie/toolsrv/client";

/** A tool call cut off because the connection to the host its tools run on was lost. */
export class ToolsrvLostError extends Error {
  override readonly name = "ToolsrvLostError";
  constructor(
    readonly destination: string,
    readonly reason: string,
  ) {
    super(
      `connection to ${destination} lost (${reason}); the call did not finish there, and the next call reconnects`,
    );
  }
}

/** Dials toolsrv for the agent, loading `loaded` (the tools it had) when it is a dial again. */
export type ToolsrvDial = (loaded?: readonly string[]) => Promise<ToolsrvConn>;

/**
 * A remote agent's tools: a ToolsrvConn to its host's toolsrv, dialled again at the first use after the
 * connection was lost (the host's toolsrv is started again then), with the tools the agent had loaded. A call
 * the loss cut off fails with ToolsrvLostError; listing tools and reading their revision, which change
 * nothing, are simply asked again on the new connection.
 */
export class RedialingTools implements ToolExecutor {
  #conn: ToolsrvConn | undefined;
  #dialing: Promise<ToolsrvConn> | undefined;
  #loaded: string[] | undefined;

  private constructor(
    private readonly destination: string,
    private readonly dial: ToolsrvDial,
    private readonly lostReason: () => string | undefined,
  ) {}

  static async open(destination: string, dial: ToolsrvDial, lostReason: () => string | undefined) {
    const tools = new RedialingTools(destination, dial, lostReason);
    await tools.connection();
    return tools;
  }

  /** The connection as it is now; undefined between a loss and the next use. */
  get current(): ToolsrvConn | undefined {
    return this.#conn;
  }

  private connection(): Promise<ToolsrvConn> {
    // The host's toolsrv ended or its connection was lost: a connection made before is dead, whether or not
    // it has noticed yet (a dial since then would have cleared the loss), so a call goes to a new one.
    if (this.#conn && this.lostReason() !== undefined) {
      void this.#conn.close().catch(() => {});
      this.#conn = undefined;
    }
    if (this.#conn) return Promise.resolve(this.#conn);
    this.#dialing ??= this.dial(this.#loaded).then(
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

  revision(signal?: AbortSignal): Promise<number> {
    return this.again((conn) => conn.revision(signal));
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    return this.onLoss(
      (conn) => conn.call(name, args, signal),
      (error) => {
        throw new ToolsrvLostError(this.destination, this.lostReason() ?? error.message);
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
