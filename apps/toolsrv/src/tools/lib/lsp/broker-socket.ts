import { rm, stat } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import {
  createMessageConnection,
  ResponseError,
  SocketMessageReader,
  SocketMessageWriter,
} from "vscode-jsonrpc/node";
import { ToolError } from "../tool-io.js";
import { Broker } from "./broker.js";
import { LSP_REQUEST, STATUS_REQUEST, socketAddress, socketPath } from "./broker-protocol.js";

/** Error codes of the broker's answers: a mistake the model can fix, or the broker's own failure. */
export const TOOL_ERROR = 1;
export const BROKER_ERROR = 2;

export interface BrokerRunOptions {
  /** A server unused this long is shut down (default 10 minutes). */
  serverIdleMs?: number;
  /** With no server left and no request for this long, the broker exits (default 1 minute). */
  brokerIdleMs?: number;
}

/**
 * Runs the broker for this agent: listens on the socket in TMPDIR, answers the lsp_* tools, and exits —
 * shutting its servers down — when idle with no server left, on SIGTERM, or when its socket is removed or
 * replaced (the agent's TMPDIR is gone with the agent). Exits at once when another broker already answers.
 */
export async function runBroker(options: BrokerRunOptions = {}): Promise<void> {
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const path = socketPath();
  const { address, chdir } = socketAddress(path);
  if (chdir) process.chdir(chdir);
  if (await answers(address)) {
    log(`another broker answers on ${path}; leaving it to serve`);
    return;
  }
  await rm(address, { force: true });
  const broker = new Broker({ serverIdleMs: options.serverIdleMs ?? 10 * 60_000, log });
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    const conn = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    conn.onRequest(LSP_REQUEST, async (req) => {
      try {
        return { text: await broker.handle(req) };
      } catch (error) {
        if (error instanceof ToolError) throw new ResponseError(TOOL_ERROR, error.message);
        throw new ResponseError(BROKER_ERROR, `the broker failed: ${(error as Error).stack ?? error}`);
      }
    });
    conn.onRequest(STATUS_REQUEST, () => broker.status());
    socket.on("close", () => {
      connections.delete(socket);
      conn.dispose();
    });
    socket.on("error", () => socket.destroy());
    conn.listen();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => resolve());
  });
  const { ino } = await stat(address);
  log(`serving on ${path}`);

  let stopping: string | undefined;
  await new Promise<void>((resolve) => {
    const stop = (why: string) => {
      if (stopping) return;
      stopping = why;
      clearInterval(timer);
      resolve();
    };
    // One look at a time: a sweep that shuts a server down may take longer than the interval.
    let looking = false;
    const timer = setInterval(async () => {
      if (looking) return;
      looking = true;
      try {
        const now = await stat(address).catch(() => undefined);
        if (now?.ino !== ino) return stop(`${path} was removed or replaced`);
        await broker.sweep();
        const idle = Date.now() - broker.idleSince > (options.brokerIdleMs ?? 60_000);
        if (broker.size === 0 && connections.size === 0 && idle) stop("idle, with no language server left");
      } finally {
        looking = false;
      }
    }, 1000);
    process.once("SIGTERM", () => stop("terminated"));
    process.once("SIGINT", () => stop("interrupted"));
  });
  log(`stopping: ${stopping}`);
  server.close();
  for (const socket of connections) socket.destroy();
  const owned = await stat(address).catch(() => undefined);
  if (owned?.ino === ino) await rm(address, { force: true });
  await broker.close();
}

/** Whether a broker answers on `address` now. */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(address);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
