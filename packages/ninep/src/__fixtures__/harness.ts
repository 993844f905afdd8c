import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, vi } from "vitest";
import { NinepClient } from "../client/client.js";
import type { FileServer } from "../server/file-server.js";
import { NinepServer, type ServerOptions } from "../server/server.js";

export interface Harness<A> {
  server: NinepServer<A>;
  /** The Unix socket path the server listens on. */
  path: string;
  address: string;
  /** A raw socket to the server, connected. */
  socket(): Promise<Socket>;
  client(msize?: number): Promise<NinepClient>;
  close(): Promise<void>;
}

/** Serves `fs` on a Unix socket in a fresh temporary directory. */
export async function serve<A>(fs: FileServer<A>, options: ServerOptions = {}): Promise<Harness<A>> {
  const dir = mkdtempSync(join(tmpdir(), "ninep-test-"));
  const path = join(dir, "srv");
  const server = new NinepServer(fs, options);
  await server.listen(`unix!${path}`);
  const sockets: Socket[] = [];
  const clients: NinepClient[] = [];
  return {
    server,
    path,
    address: `unix!${path}`,
    socket: () =>
      new Promise((resolve, reject) => {
        const s = connect(path, () => resolve(s));
        s.once("error", reject);
        sockets.push(s);
      }),
    async client(msize?: number) {
      const c = await NinepClient.dial(`unix!${path}`, msize ? { msize } : {});
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.close();
      for (const s of sockets) s.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits (vitest's `vi.waitFor`, bounded by `timeoutMs`) until `condition` holds. */
export async function eventually(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  await vi.waitFor(() => expect(condition(), "condition met").toBe(true), {
    timeout: timeoutMs,
    interval: 5,
  });
}
