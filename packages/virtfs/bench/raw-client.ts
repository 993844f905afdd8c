import { connect, type Socket } from "node:net";
import { decodeMessage, encodeMessage, FrameReader, type Message, NOFID, OREAD } from "@ollie/ninep";

/**
 * A client that speaks 9P by hand and keeps no state of its own, so that measuring the heap of a process
 * running it measures the server.
 */
export class RawClient {
  private readonly reader = new FrameReader(1 << 20);
  replies = 0;
  private onReply: (() => void) | null = null;

  private constructor(private readonly sock: Socket) {
    sock.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
      for (let f = this.reader.next(); f; f = this.reader.next()) {
        const m = decodeMessage(f);
        if (m.type === "Rerror") throw new Error(`server said: ${m.ename}`);
        this.replies++;
      }
      this.onReply?.();
    });
  }

  static async connect(path: string): Promise<RawClient> {
    const sock: Socket = await new Promise((resolve) => {
      const s = connect(path, () => resolve(s));
    });
    const c = new RawClient(sock);
    await c.exchange([{ type: "Tversion", tag: 0xffff, msize: 65560, version: "9P2000" }]);
    await c.exchange([{ type: "Tattach", tag: 0, fid: 0, afid: NOFID, uname: "bench", aname: "" }]);
    return c;
  }

  send(messages: Message[]): void {
    this.sock.write(Buffer.concat(messages.map(encodeMessage)));
  }

  /** Resolves once `total` replies have arrived since the client started. */
  until(total: number): Promise<void> {
    if (this.replies >= total) return Promise.resolve();
    return new Promise((resolve) => {
      this.onReply = () => {
        if (this.replies >= total) {
          this.onReply = null;
          resolve();
        }
      };
    });
  }

  async exchange(messages: Message[]): Promise<void> {
    const target = this.replies + messages.length;
    this.send(messages);
    await this.until(target);
  }

  /** Opens fids 1..n on `name` for reading. */
  async openMany(name: string, n: number): Promise<void> {
    const batch: Message[] = [];
    for (let fid = 1; fid <= n; fid++) {
      batch.push({ type: "Twalk", tag: (2 * fid) % 60000, fid: 0, newfid: fid, wnames: [name] });
      batch.push({ type: "Topen", tag: (2 * fid + 1) % 60000, fid, mode: OREAD });
      if (batch.length >= 200) await this.exchange(batch.splice(0));
    }
    if (batch.length > 0) await this.exchange(batch);
  }

  /** Sends one Tread of fids 1..n at `offset` without waiting. */
  readAll(n: number, offset = 0n): void {
    const reads: Message[] = [];
    for (let fid = 1; fid <= n; fid++) reads.push({ type: "Tread", tag: fid, fid, offset, count: 4096 });
    this.send(reads);
  }

  close(): void {
    this.sock.destroy();
  }
}
