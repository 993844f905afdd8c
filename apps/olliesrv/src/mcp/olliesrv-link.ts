import { DialError, type OllieClient } from "@ollie/client";

/**
 * The MCP server's connection to olliesrv, made at the first tool call rather than at start, and made again
 * at the next call once it is lost.
 *
 * `ollie mcp` starts even when olliesrv does not run, and answers each tool call with an error saying so: an
 * MCP client starts its servers when it starts, often before olliesrv, and one that exits is marked failed
 * until the client is restarted; this way the model reads why the call failed and can tell the person, and
 * the tools work as soon as olliesrv does — or again after it restarts — with no restart of the client.
 */
export class OlliesrvLink {
  private current: Promise<OllieClient> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly reach: () => Promise<OllieClient>) {}

  /** Runs `work` with the connection, dialling it (as the owner, or as `-u`/`-k` say) if there is none. */
  async use<T>(work: (client: OllieClient) => Promise<T>): Promise<T> {
    const running = this.client().then(work);
    this.inFlight.add(running);
    try {
      return await running;
    } finally {
      this.inFlight.delete(running);
    }
  }

  /**
   * Closes the connection once the work in flight has ended: the MCP connection closing cancels every call,
   * and a cancelled prompt stops its turn through this connection first.
   */
  async close(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    const current = this.current;
    this.current = undefined;
    (await current?.catch(() => undefined))?.close();
  }

  private client(): Promise<OllieClient> {
    if (this.current) return this.current;
    const dialled = this.reach().catch((error: unknown) => {
      this.current = undefined;
      throw notRunning(error);
    });
    this.current = dialled;
    void dialled.then(
      async (client) => {
        await client.closed;
        if (this.current === dialled) this.current = undefined;
      },
      () => {},
    );
    return dialled;
  }
}

/** A dial that found no olliesrv says so plainly, and what to do; any other failure passes as it came. */
function notRunning(error: unknown): unknown {
  if (!(error instanceof DialError) || !error.notRunning) return error;
  return new Error(
    `olliesrv is not running at ${error.address}: start it (olliesrv), or give ollie mcp the address of one that runs (ollie -a ADDRESS mcp)`,
  );
}
