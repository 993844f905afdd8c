import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Authenticator,
  type Dialect,
  type Fsys,
  NinepClient,
  NinepServer,
  type ServerOptions,
} from "@ollie/ninep";
import { afterEach, expect, vi } from "vitest";
import type { DirSpec } from "../spec/node-spec.js";
import { buildTree } from "../tree/build-tree.js";
import type { TreeOptions } from "../tree/tree-options.js";
import type { VirtualTree } from "../tree/virtual-tree.js";

export interface Served {
  tree: VirtualTree;
  server: NinepServer<unknown>;
  path: string;
  /**
   * A new connection attached as `uname`, in 9P2000 or (`dialect`) 9P2000.L, to `aname` (default ""),
   * proving the uname with `authenticator` when given.
   */
  attach(
    uname?: string,
    options?: { dialect?: Dialect; aname?: string; authenticator?: Authenticator },
  ): Promise<Fsys>;
  close(): Promise<void>;
}

/** Builds `root` and serves it on a Unix socket in a fresh temporary directory. */
export async function serveTree(
  root: DirSpec,
  options: TreeOptions = {},
  serverOptions: ServerOptions = {},
): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), "virtfs-test-"));
  const path = join(dir, "srv");
  const tree = buildTree(root, { owner: "owner", ...options });
  const server = new NinepServer(tree, serverOptions);
  await server.listen(path);
  const clients: NinepClient[] = [];
  return {
    tree,
    server,
    path,
    async attach(uname = "owner", options = {}) {
      const client = await NinepClient.dial(path, options.dialect ? { dialect: options.dialect } : {});
      clients.push(client);
      return client.attach({
        uname,
        ...(options.aname !== undefined && { aname: options.aname }),
        ...(options.authenticator && { authenticator: options.authenticator }),
      });
    },
    async close() {
      for (const c of clients) c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits (vitest's `vi.waitFor`, bounded by `timeoutMs`) until `condition` holds. */
export async function eventually(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  await vi.waitFor(() => expect(condition(), "condition met").toBe(true), {
    timeout: timeoutMs,
    interval: 5,
  });
}

/** For a test file: a `serveTree` whose tree is closed after each test. */
export function servedPerTest(): (
  root: DirSpec,
  options?: TreeOptions,
  serverOptions?: ServerOptions,
) => Promise<Served> {
  let current: Served | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (root, options, serverOptions) => {
    current = await serveTree(root, options, serverOptions);
    return current;
  };
}
