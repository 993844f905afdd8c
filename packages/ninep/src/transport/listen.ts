import { lstat, mkdir, unlink } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { type Address, formatAddress } from "./address.js";

/** A listening socket. `close` stops accepting and, for a Unix socket, removes its file. */
export interface Listener {
  readonly address: Address;
  /** The address actually bound (a TCP port of 0 becomes the chosen port). */
  readonly boundAddress: Address;
  readonly server: Server;
  close(): Promise<void>;
}

/** Thrown when another server already listens at a Unix socket path or the path is not a socket. */
export class AddressInUseError extends Error {
  override readonly name = "AddressInUseError";
}

function isListening(where: string | { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = typeof where === "string" ? connect(where) : connect(where.port, where.host);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/** Prepares a Unix socket path: parent made 0700 if missing; an existing socket removed only when nobody
 * answers on it. */
async function prepareUnixPath(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  let existing: Awaited<ReturnType<typeof lstat>>;
  try {
    existing = await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (!existing.isSocket()) throw new AddressInUseError(`${path} exists and is not a socket`);
  if (await isListening(path)) throw new AddressInUseError(`another server is listening on ${path}`);
  await unlink(path);
}

/**
 * Fails with AddressInUseError when a server already answers at `address` (a Unix socket, or a TCP port on
 * loopback or a named host): a daemon checks this before it starts anything else, so that a second one
 * fails at once, saying where.
 */
export async function assertAddressFree(address: Address): Promise<void> {
  if (address.kind === "unix") {
    const existing = await lstat(address.path).catch((err: NodeJS.ErrnoException) => {
      // Not there is free; a path that cannot be reached (ENOTDIR, EACCES) never will be.
      if (err.code === "ENOENT") return undefined;
      throw new Error(`cannot serve at ${address.path}: ${err.message}`, { cause: err });
    });
    if (existing && !existing.isSocket())
      throw new AddressInUseError(`${address.path} exists and is not a socket`);
    if (existing && (await isListening(address.path)))
      throw new AddressInUseError(`another server is listening on ${address.path}`);
    return;
  }
  const host = address.host === "*" ? "127.0.0.1" : address.host;
  if (await isListening({ host, port: address.port }))
    throw new AddressInUseError(`another server is listening on tcp!${address.host}!${address.port}`);
}

export async function listen(address: Address, onConnection: (socket: Socket) => void): Promise<Listener> {
  try {
    return await bind(address, onConnection);
  } catch (err) {
    if (err instanceof AddressInUseError) throw err;
    // The errno code stays on the error, for callers that look at it (EADDRINUSE, EACCES).
    throw Object.assign(
      new Error(`cannot listen on ${formatAddress(address)}: ${(err as Error).message}`, { cause: err }),
      { code: (err as NodeJS.ErrnoException).code },
    );
  }
}

async function bind(address: Address, onConnection: (socket: Socket) => void): Promise<Listener> {
  if (address.kind === "unix") await prepareUnixPath(address.path);
  // Half-open: a client that shuts down its side still gets the replies to what it sent. Paused: nothing is
  // read from a socket until the server has decided to serve it (its peer identified, the limits checked).
  const server = createServer({ noDelay: true, allowHalfOpen: true, pauseOnConnect: true }, onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const done = () => {
      server.off("error", reject);
      resolve();
    };
    if (address.kind === "unix") server.listen(address.path, done);
    else server.listen(address.port, address.host === "*" ? undefined : address.host, done);
  });
  let boundAddress = address;
  const bound = server.address();
  if (address.kind === "tcp" && bound && typeof bound === "object") {
    boundAddress = { kind: "tcp", host: address.host, port: bound.port };
  }
  let closing: Promise<void> | null = null;
  return {
    address,
    boundAddress,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closing;
    },
  };
}
