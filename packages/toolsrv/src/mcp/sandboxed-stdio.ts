import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SandboxedProcess } from "@ollie/sandbox";

/**
 * MCP's stdio transport over a server toolsrv started under the sandbox (the SDK's own transport spawns
 * the command itself, outside any sandbox). Framing and message checks are the SDK's; a line that is not
 * JSON-RPC (a server that logs to standard output) is reported and skipped rather than ending the link.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;
  /** Why this transport ended the server itself, if it did. */
  endReason: string | undefined;

  constructor(
    private readonly child: SandboxedProcess,
    /** Names the server in errors. */
    private readonly label: string,
  ) {}

  async start(): Promise<void> {
    this.child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    // A write to a server that has just exited fails with EPIPE; its exit is reported by onclose.
    this.child.stdin.on("error", () => {});
    this.child.exit.then(
      () => this.ended(),
      () => this.ended(),
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.label} has exited`));
    return new Promise((resolve) => {
      if (this.child.stdin.write(serializeMessage(message))) resolve();
      else this.child.stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.child.end();
    await this.child.exit.catch(() => undefined);
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      // The message cannot be taken whole, nor the stream followed after it: the server is ended, and the
      // calls waiting on it fail at once rather than at their timeouts.
      this.endReason = `it sent a message too big to take (${(error as Error).message})`;
      this.onerror?.(new Error(`${this.label}: ${this.endReason}`));
      this.child.end();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(
          new Error(`${this.label} wrote a line that is not JSON-RPC: ${(error as Error).message}`),
        );
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
