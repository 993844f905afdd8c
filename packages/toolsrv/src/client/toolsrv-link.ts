import { type Authenticator, type Fsys, NinepClient } from "@ollie/ninep";

/** Where toolsrv is, and who attaches to it (proving its uname when there is an authenticator). */
export interface ToolsrvLinkOptions {
  /** toolsrv's address, e.g. `unix!/run/user/1000/ns/toolsrv`. */
  address: string;
  uname: string;
  authenticator?: Authenticator;
}

/** A 9P connection to toolsrv, attached as one uname: what ToolsrvConn and BypassConn each hold. */
export class ToolsrvLink {
  private constructor(
    private readonly client: NinepClient,
    /** toolsrv's namespace as the attached uname sees it. */
    readonly fsys: Fsys,
    private readonly authenticator: Authenticator | undefined,
  ) {}

  /**
   * Dials toolsrv, attaches, and runs `setup` on the attached namespace (e.g. loading tools); when any of it
   * fails, the connection is closed and the error thrown.
   */
  static async dial(
    options: ToolsrvLinkOptions,
    signal?: AbortSignal,
    setup?: (link: ToolsrvLink) => Promise<void>,
  ): Promise<ToolsrvLink> {
    const client = await NinepClient.dial(options.address, signal ? { signal } : {});
    try {
      const fsys = await client.attach({
        uname: options.uname,
        ...(options.authenticator && { authenticator: options.authenticator }),
      });
      const link = new ToolsrvLink(client, fsys, options.authenticator);
      await setup?.(link);
      return link;
    } catch (error) {
      client.close();
      throw error;
    }
  }

  /**
   * Attaches again on this connection as `uname`, proving it with the same authenticator: what lives on
   * that attach ends with the connection, as the first one's does.
   */
  attachAs(uname: string, signal?: AbortSignal): Promise<Fsys> {
    return this.client.attach({
      uname,
      ...(this.authenticator && { authenticator: this.authenticator }),
      ...(signal && { signal }),
    });
  }

  /** Resolves when the connection ends, from either side (toolsrv stopped, or the way to it broke). */
  get closed(): Promise<void> {
    return this.client.closed;
  }

  /** Clunks the root and closes the connection; never rejects. */
  async close(): Promise<void> {
    await this.fsys.close().catch(() => {});
    this.client.close();
  }
}
