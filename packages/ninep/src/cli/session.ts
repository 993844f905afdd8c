import { readFile } from "node:fs/promises";
import { hmacAuthenticator } from "../auth/hmac.js";
import { NinepClient } from "../client/client.js";
import { DialectRefusedError, NinepRemoteError } from "../client/errors.js";
import type { Fsys } from "../client/fsys.js";
import { splitPath } from "../client/path.js";
import { type Address, formatAddress, parseAddress, serviceAddress } from "../transport/address.js";
import { ownerKeyPath, readOwnerKey } from "./owner-key.js";
import { UsageError } from "./usage.js";

export interface GlobalOptions {
  address?: string | undefined;
  aname: string;
  uname: string;
  keyFile?: string | undefined;
  trace: boolean;
  /** `-L`: ask for 9P2000.L (a server that answers 9P2000 is spoken to in 9P2000). */
  linux: boolean;
}

/** Where a command-line path lives: the server's address and the path inside its tree. */
export function locate(path: string, options: GlobalOptions): { address: Address; path: string } {
  if (options.address) return { address: parseAddress(options.address), path };
  const [service, ...rest] = splitPath(path);
  if (!service) throw new UsageError(`'${path}' names no service; give one (e.g. ramfs/file) or use -a`);
  return { address: serviceAddress(service), path: rest.join("/") };
}

/** The attached trees a command uses, one connection per server, closed together at the end. */
export class Sessions {
  private readonly open = new Map<string, Promise<Fsys<NinepClient>>>();

  constructor(private readonly options: GlobalOptions) {}

  /** The tree holding `path`, and the path inside it. */
  async resolve(path: string): Promise<{ fsys: Fsys; path: string }> {
    const where = locate(path, this.options);
    const key = formatAddress(where.address);
    let fsys = this.open.get(key);
    if (!fsys) {
      fsys = this.attach(where.address);
      this.open.set(key, fsys);
    }
    return { fsys: await fsys, path: where.path };
  }

  private async attach(address: Address): Promise<Fsys<NinepClient>> {
    const trace = this.options.trace ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
    const client = await NinepClient.dial(address, {
      ...(trace && { trace }),
      ...(this.options.linux && { dialect: "9P2000.L" as const }),
    }).catch((error: unknown) => {
      if (!(error instanceof DialectRefusedError)) throw error;
      const flag = error.other === "9P2000.L" ? "-L" : "without -L";
      throw new Error(`${formatAddress(address)}: ${error.message} (try ${flag})`, { cause: error });
    });
    let proof = "";
    try {
      // -k's key, else the service's owner key where it keeps one (see ownerKeyPath); a server that asks
      // for no proof answers Tauth with an error, and the attach goes on without it.
      let key: string | undefined;
      if (this.options.keyFile) key = (await readFile(this.options.keyFile, "utf8")).trim();
      else {
        const owner = await readOwnerKey(address);
        key = owner?.key;
        const path = ownerKeyPath(address);
        if (owner) proof = ` (proven with ${owner.path})`;
        else
          proof = path === undefined ? " (no key: -k names one)" : ` (no key: none at ${path}, -k names one)`;
      }
      return await client.attach({
        uname: this.options.uname,
        aname: this.options.aname,
        ...(key !== undefined && { authenticator: hmacAuthenticator(key) }),
      });
    } catch (error) {
      // A refused attach leaves no tree to close at the end, but the connection is open: close it here.
      client.close();
      if (!(error instanceof NinepRemoteError)) throw error;
      // Which key was tried, or where none was found, where the refusal is about the proof.
      const about = /authenticat/i.test(error.message) ? proof : "";
      throw new Error(
        `${formatAddress(address)} refused to attach ${JSON.stringify(this.options.uname)}: ${error.message}${about}`,
        { cause: error },
      );
    }
  }

  /** Clunks each tree's root, waits for every clunk to be answered, then closes the connections. */
  async close(): Promise<void> {
    for (const fsys of this.open.values()) {
      const f = await fsys.catch(() => undefined);
      if (!f) continue;
      await f.close().catch(() => {});
      await f.client.end();
    }
  }
}
