import type { Socket } from "node:net";
import type { EnsureOptions } from "../launcher/ensure-launcher.js";
import { askLauncher, closedError } from "./ask-peer-cred.js";
import type { PeerCredentials } from "./peer-credential-types.js";

export interface PeerCredentialsReaderOptions extends EnsureOptions {
  /** The most sockets one launcher is asked about (default 256). */
  maxBatch?: number;
}

interface Question {
  socket: Socket;
  resolve(answer: PeerCredentials): void;
  reject(error: Error): void;
}

/**
 * Asks who is at the other end of Unix sockets (as peerCredentials does), many at a time: sockets asked
 * about while the launcher answers for others wait for the next one, which is asked about all of them at
 * once — so a flood of connections costs one launcher start per batch rather than one per connection, and
 * a connection waits for two starts at most. Asking again about a socket gives the same answer.
 */
export class PeerCredentialsReader {
  private readonly waiting: Question[] = [];
  private readonly answers = new WeakMap<Socket, Promise<PeerCredentials>>();
  private asking = false;

  constructor(private readonly options: PeerCredentialsReaderOptions = {}) {}

  read(socket: Socket): Promise<PeerCredentials> {
    let answer = this.answers.get(socket);
    if (!answer) {
      answer = new Promise((resolve, reject) => this.waiting.push({ socket, resolve, reject }));
      this.answers.set(socket, answer);
      void this.askAll();
    }
    return answer;
  }

  /** Asks the launcher about the waiting sockets, a batch at a time, until none waits. */
  private async askAll(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.options.maxBatch ?? 256);
        const open = batch.filter((q) => !q.socket.destroyed);
        for (const q of batch) if (q.socket.destroyed) q.reject(closedError());
        try {
          const answers = await askLauncher(
            open.map((q) => q.socket),
            this.options,
          );
          open.forEach((q, i) => {
            const answer = answers[i]!;
            if (answer instanceof Error) q.reject(answer);
            else q.resolve(answer);
          });
        } catch (error) {
          for (const q of open) q.reject(error as Error);
        }
      }
    } finally {
      this.asking = false;
    }
  }
}
