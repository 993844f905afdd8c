import { createHash } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import { confinedBeyond, peerCredentials } from "@ollie/sandbox";
import { LineSplitter } from "./each-line.js";

/** Where a daemon holding the lock is: starting (making its parts), ready (serving), or stopping. */
export type DaemonState = "starting" | "ready" | "stopping";

/** Clients the lock answers at once; a daemon has no reason to be watched by more. */
const MAX_WATCHERS = 32;

/**
 * The lock's name: a Linux abstract Unix socket (no file; it goes when its process does) named for the user
 * and the daemon's socket path. Hashed, as an abstract name is at most 107 bytes.
 */
export function lockName(socketPath: string, uid = process.getuid?.() ?? 0): string {
  const hash = createHash("sha256").update(resolve(socketPath)).digest("hex").slice(0, 32);
  return `\0ollie/olliesrv/${uid}/${hash}`;
}

/**
 * One olliesrv per socket path, held from before anything starts (the owner key, toolsrv) until the very
 * end (toolsrv stopped, the socket removed): an abstract Unix socket bound to `lockName`. Binding is atomic
 * — of two daemons started at once, one binds — and the kernel lets go of it when the process ends, however
 * it ends, so a crash leaves no stale lock to guess about. Whoever connects reads `PID STATE` lines: one at
 * once, then one at each change of state, until the daemon is gone (the end of the stream). That is how a
 * starter that lost the race waits for the daemon that won.
 */
export class DaemonLock {
  #state: DaemonState = "starting";
  readonly #watchers = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on("connection", (socket) => {
      socket.on("error", () => {});
      this.#watchers.add(socket);
      socket.once("close", () => this.#watchers.delete(socket));
      socket.write(this.line());
    });
    // It lives as long as the daemon does, and never keeps it alive on its own.
    server.unref();
  }

  /**
   * Takes the lock for `socketPath`, or says who holds it: a daemon of this user (`held`, followed from
   * here: close it when done), or a process the lock cannot be trusted from (`foreign`: another user's, or
   * one under the sandbox's filters) — which must not stop this user's daemon, so the caller goes on
   * without the lock.
   */
  static async take(socketPath: string): Promise<LockTaken> {
    const name = lockName(socketPath);
    // Twice: a holder that ends between the bind and the look at it leaves the name free again.
    for (let attempt = 0; ; attempt++) {
      const server = createServer();
      server.maxConnections = MAX_WATCHERS;
      const failed = await new Promise<NodeJS.ErrnoException | undefined>((done) => {
        server.once("error", done);
        server.listen(name, () => done(undefined));
      });
      if (!failed) return { lock: new DaemonLock(server) };
      if (failed.code !== "EADDRINUSE") throw failed;
      const holder = await watchLock(socketPath);
      if (holder && "foreign" in holder) return holder;
      const state = await holder?.first;
      if (holder && state) return { held: holder, state };
      holder?.close();
      if (attempt === 1) throw new Error(`the lock for ${socketPath} is taken, and its holder is gone`);
    }
  }

  /** Tells every watcher, now and from now, that the daemon is `state`. */
  set(state: DaemonState): void {
    this.#state = state;
    for (const socket of this.#watchers) socket.write(this.line());
  }

  /** Lets go of the lock: the daemon is done. Watchers see their stream end. */
  release(): void {
    this.server.close();
    for (const socket of this.#watchers) socket.destroy();
  }

  private line(): string {
    return `${process.pid} ${this.#state}\n`;
  }
}

/** The daemon that holds a lock, followed from outside: its pid, and its states as it reports them. */
export interface LockWatch {
  pid: number;
  /** The state it reported on connecting; undefined if it was gone before saying one. */
  first: Promise<DaemonState | undefined>;
  /** Resolves with `ready` once it serves, or undefined when it is gone (or stopping) first. */
  ready: Promise<"ready" | undefined>;
  /** Resolves once it has let go of the lock (it ended). */
  gone: Promise<void>;
  close(): void;
}

/** Who is on a lock: this daemon now, another of the user's (followed), or a stranger. */
export type LockTaken =
  | { lock: DaemonLock }
  | { held: LockWatch; state: DaemonState }
  | { foreign: { pid: number; uid: number } };

/**
 * Follows the daemon holding the lock for `socketPath`, once it has said its state: undefined when none
 * holds it, `foreign` when the holder is not a process of this user outside any sandbox (the kernel says
 * who, SO_PEERCRED, asked through the sandbox's launcher).
 */
export async function watchLock(
  socketPath: string,
): Promise<LockWatch | { foreign: { pid: number; uid: number } } | undefined> {
  const socket = connect(lockName(socketPath));
  let first!: (state: DaemonState | undefined) => void;
  let ready!: (state: "ready" | undefined) => void;
  let gone!: () => void;
  let saidPid: number | undefined;
  const said = {
    gone: new Promise<void>((r) => {
      gone = r;
    }),
    first: new Promise<DaemonState | undefined>((r) => {
      first = r;
    }),
    ready: new Promise<"ready" | undefined>((r) => {
      ready = r;
    }),
  };
  const lines = new LineSplitter((line) => {
    const found = /^(\d+) (starting|ready|stopping)$/.exec(line);
    const state = found?.[2] as DaemonState | undefined;
    saidPid ??= found ? Number(found[1]) : undefined;
    first(state);
    if (state === "ready") ready("ready");
    if (state === "stopping") ready(undefined);
  }, 1024);
  socket.on("data", (chunk: Buffer) => lines.write(chunk));
  socket.once("close", () => {
    first(undefined);
    ready(undefined);
    gone();
  });
  const connected = await new Promise<boolean>((done) => {
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
  if (!connected) return undefined;
  socket.on("error", () => {});
  // Where the kernel cannot be asked (no launcher here), the holder is taken at its word: refusing to start
  // for a lock nobody could check would be worse than the stranger it guards against.
  const peer = await peerCredentials(socket).catch(() => undefined);
  // Handing a socket to a child process stops its reading (node's child_process): read on.
  socket.resume();
  if (peer && (peer.uid !== (process.getuid?.() ?? 0) || confinedBeyond(peer.confinement))) {
    socket.destroy();
    return { foreign: { pid: peer.pid, uid: peer.uid } };
  }
  await said.first;
  return { pid: peer?.pid ?? saidPid ?? 0, ...said, close: () => socket.destroy() };
}
