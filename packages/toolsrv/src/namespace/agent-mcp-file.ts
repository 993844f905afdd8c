import { Errno, NinepError } from "@ollie/ninep";
import type { FileHandlers } from "@ollie/virtfs";
import { abortable } from "../exec/abortable.js";
import { DAEMON_UNAME } from "../protocol/agent-mcp.js";
import type { OwnMcp } from "../server/own-mcp.js";

interface SetState {
  request: Buffer[];
  /** Resolves at the first write: a read sent with it, before it is handled, waits for it. */
  written: Promise<void>;
  wrote(): void;
  /** What the set answers (its JSON line), once made. */
  result?: Promise<Buffer>;
  /** The agent whose servers this open set, once it has. */
  agent?: string;
  /** The fid was clunked (or its connection ended). */
  gone: boolean;
}

/**
 * The `agentmcp` file: the daemon writes one agent's own MCP servers (an AgentMcpRequest, in as many writes
 * as it takes) and reads back how they stand; the first read sets them. They run while this open lasts:
 * clunking it — or the end of the connection it is on — stops them, unless a later set for the agent
 * replaced them. Only DAEMON_UNAME may open it: an agent attached as itself is refused.
 */
export function agentMcpFile(ownMcp: OwnMcp): FileHandlers<SetState> {
  return {
    open: ({ uname }) => {
      if (uname !== DAEMON_UNAME)
        throw new NinepError(
          `permission denied: only the daemon (attached as ${DAEMON_UNAME}) sets an agent's MCP servers, not ${uname}`,
          { errno: Errno.EPERM },
        );
      let wrote = () => {};
      const written = new Promise<void>((resolve) => {
        wrote = resolve;
      });
      return { request: [], written, wrote, gone: false };
    },
    write({ state, data }) {
      if (state.result)
        throw new Error("this fid has set its agent's servers: open agentmcp again for another set");
      state.request.push(Buffer.from(data));
      state.wrote();
      return data.length;
    },
    async read({ state, offset, count, signal }) {
      if (!state.result && state.request.length === 0) await abortable(state.written, signal);
      state.result ??= set(ownMcp, state);
      const result = await abortable(state.result, signal);
      return result.subarray(offset, offset + count);
    },
    async close({ state }) {
      state.gone = true;
      if (state.agent !== undefined) await ownMcp.release(state.agent, state);
    },
  };
}

async function set(ownMcp: OwnMcp, state: SetState): Promise<Buffer> {
  let request: unknown;
  try {
    request = JSON.parse(Buffer.concat(state.request).toString("utf8"));
  } catch (error) {
    throw new NinepError(`agentmcp: not JSON: ${(error as Error).message}`, { errno: Errno.EINVAL });
  }
  const agent = (request as { agent?: unknown } | null)?.agent;
  if (typeof agent === "string") state.agent = agent;
  try {
    const status = await ownMcp.set(request, state);
    return Buffer.from(`${JSON.stringify(status)}\n`);
  } catch (error) {
    throw new NinepError(`agentmcp: ${(error as Error).message}`, { errno: Errno.EINVAL });
  } finally {
    // Clunked while the servers were starting: they stop now rather than run for nobody.
    if (state.gone && state.agent !== undefined) await ownMcp.release(state.agent, state);
  }
}
