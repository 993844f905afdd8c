import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * The baselines: plain Node Unix-socket exchanges with the same byte counts as the 9P ones, and no protocol.
 */

/** A server that answers every `requestSize` bytes it receives with `reply`. */
export function pingPongServer(path: string, requestSize: number, reply: Buffer): Promise<Server> {
  const server = createServer((sock) => {
    let pending = 0;
    sock.on("data", (chunk: Buffer) => {
      pending += chunk.length;
      while (pending >= requestSize) {
        pending -= requestSize;
        sock.write(reply);
      }
    });
    sock.on("error", () => {});
  });
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

/** A server that writes `total` bytes in `chunk`-sized writes to every client, then ends. */
export function streamServer(path: string, total: number, chunk: number): Promise<Server> {
  const block = Buffer.alloc(chunk, 7);
  const server = createServer((sock) => {
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        const n = Math.min(chunk, total - sent);
        sent += n;
        if (!sock.write(n === chunk ? block : block.subarray(0, n))) {
          sock.once("drain", pump);
          return;
        }
      }
      sock.end();
    };
    pump();
  });
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

export function dialRaw(path: string): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(path, () => resolve(s));
  });
}

/** Sends `request` and waits for `replySize` bytes, `count` times, keeping `depth` exchanges in flight. */
export function pingPong(
  sock: Socket,
  request: Buffer,
  replySize: number,
  count: number,
  depth: number,
): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    let done = 0;
    let sent = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      while (received >= replySize) {
        received -= replySize;
        done++;
        if (sent < count) {
          sock.write(request);
          sent++;
        }
      }
      if (done === count) {
        sock.off("data", onData);
        resolve();
      }
    };
    sock.on("data", onData);
    for (; sent < Math.min(depth, count); ) {
      sock.write(request);
      sent++;
    }
  });
}

/** Reads from `sock` until it ends; returns the byte count. */
export function drain(sock: Socket): Promise<number> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    sock.on("data", (chunk: Buffer) => parts.push(chunk));
    // Keep the data, as a 9P client returning a file's content must.
    sock.on("end", () => resolve(Buffer.concat(parts).length));
  });
}
