import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { OllieClient } from "@ollie/client";
import type { AcpInvocation } from "../cli/invocation.js";
import { ollieAcpAgent } from "./acp-agent.js";

const log = (line: string) => process.stderr.write(`ollie acp: ${line}\n`);

/**
 * `ollie acp`: an Agent Client Protocol agent on standard input and output (one JSON-RPC message a line;
 * nothing else is written to standard output, the log goes to standard error), until the editor closes
 * standard input. Returns the exit status: 0.
 */
export async function acpCommand(
  invocation: AcpInvocation,
  reach: () => Promise<OllieClient>,
): Promise<number> {
  const app = ollieAcpAgent({ reach, profile: invocation.agent, log });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  return 0;
}
