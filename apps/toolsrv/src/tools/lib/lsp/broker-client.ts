import { createConnection, type Socket } from "node:net";
import {
  createMessageConnection,
  ResponseError,
  SocketMessageReader,
  SocketMessageWriter,
} from "vscode-jsonrpc/node";
import { ToolError } from "../tool-io.js";
import { type BrokerRequest, LSP_REQUEST, socketAddress, socketPath } from "./broker-protocol.js";

/** How long a tool waits for the broker's socket to answer (toolsrv has just started it, at worst). */
const CONNECT_MS = 20_000;
/** How long a tool waits for an answer: within its own timeout (90 s). */
const ANSWER_MS = 80_000;

/** What a call says when its broker ended before it answered. */
export const BROKER_GONE =
  "the language server broker ended during this call, before it answered; toolsrv starts a new one for the next lsp call";

/** Asks the agent's broker (reached through its socket in TMPDIR) and returns the text of its answer. */
export async function askBroker(req: BrokerRequest): Promise<string> {
  const path = socketPath();
  const { address, chdir } = socketAddress(path);
  if (chdir) process.chdir(chdir);
  const socket = await connect(address, path);
  const conn = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  conn.listen();
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      conn.sendRequest(LSP_REQUEST, req),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new ToolError(`the language server broker gave no answer within ${ANSWER_MS / 1000} s`)),
          ANSWER_MS,
        );
        // A broker that dies with the request pending never answers it: the call ends now, saying so.
        conn.onClose(() => reject(new ToolError(BROKER_GONE)));
      }),
    ]);
    return answer.text;
  } catch (error) {
    if (error instanceof ResponseError) throw new ToolError(error.message);
    throw error;
  } finally {
    clearTimeout(timer);
    conn.dispose();
    socket.destroy();
  }
}

/** Connects, trying again while the socket is not there yet or refuses (a broker starting). */
async function connect(address: string, path: string): Promise<Socket> {
  const deadline = Date.now() + CONNECT_MS;
  for (;;) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = createConnection(address);
        socket.once("connect", () => resolve(socket));
        socket.once("error", reject);
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const retry = code === "ENOENT" || code === "ECONNREFUSED";
      if (!retry || Date.now() > deadline)
        throw new ToolError(
          `no language server broker answers on ${path} (${code ?? (error as Error).message}): toolsrv starts ` +
            "lsp_broker as these tools' companion; its proc/ entry says what became of it",
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
