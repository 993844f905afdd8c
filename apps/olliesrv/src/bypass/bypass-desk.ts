import type { Logger } from "@ollie/log";
import type { Authenticator, Fsys } from "@ollie/ninep";
import { BypassConn, type PendingBypass } from "@ollie/toolsrv/client";
import { WatchedValue } from "@ollie/virtfs";
import { oneLine } from "../one-line.js";
import { parseFiling } from "./bypass-filing.js";
import type { BypassNotice } from "./notify.js";

/** What the desk needs to know of an agent that asks. */
export interface RequestingAgent {
  /** Its session's id (the group that may read its requests). */
  session: string;
  /** Its session's directory: where an approved command runs. */
  cwd: string;
  /** Writes a line of the daemon's own into its chat. */
  note(line: string): void;
}

export interface BypassDeskOptions {
  toolsrvAddress: string;
  /** The human's uname: toolsrv takes decisions from it alone. */
  owner: string;
  /**
   * How the owner proves itself to toolsrv, tried in order (undefined: no proof, for a toolsrv that asks
   * none). The toolsrv olliesrv starts wants the owner key: holding the service key is not enough to decide.
   */
  ownerAuth: ReadonlyArray<Authenticator | undefined>;
  /** How an agent proves itself to toolsrv (the service key). */
  agentAuth?: Authenticator;
  /** The agent `uname` names, if it exists. */
  agent(uname: string): RequestingAgent | undefined;
  /** Told once of each request that starts waiting for the owner. */
  notify(notice: BypassNotice): void;
  log: Logger;
}

/** A request olliesrv knows of: filed through it, or seen pending at toolsrv. */
export interface KnownRequest {
  readonly id: number;
  readonly agent: string;
  /** The requesting agent's session (its group), if it is an agent of this daemon. */
  readonly session: string | undefined;
  readonly operation: string;
  readonly command: string;
  readonly reason: string;
  readonly cwd: string;
  decision: string;
  filedNoted: boolean;
  notified: boolean;
}

/** How many requests an agent may have waiting at once. */
export const MAX_PENDING_PER_AGENT = 4;
/** How many requests olliesrv remembers (the oldest decided ones are forgotten first). */
const KEPT = 256;

/**
 * olliesrv's side of toolsrv's bypass broker. Agents file requests through it (as themselves, in their
 * session's directory); it follows toolsrv's `bypass/wait` as the owner — the only principal toolsrv lets
 * see the pending list and decide — so that it can show what waits, tell the owner (notify.conf), write a
 * line in the asking agent's chat when a request is filed and when it is decided, and pass on the owner's
 * decisions.
 */
export class BypassDesk {
  /** The pending list as toolsrv shows it: id, agent, operation, command, reason (tab-separated). */
  readonly pending = new WatchedValue("");
  private readonly known = new Map<number, KnownRequest>();
  /** The ids of the last pending list seen. */
  private seenPending = new Set<number>();
  /** Filed here and pending when filed: watched until a pending list without them shows they were decided. */
  private readonly watching = new Set<number>();
  /** The owner's connection to toolsrv, while there is one. */
  private readonly conn = new WatchedValue<BypassConn | undefined>(undefined);
  private readonly stopping = new AbortController();
  private following: Promise<void> | undefined;
  /** Ends the wait before the follower's next attempt, when there is one. */
  #retryNow: (() => void) | undefined;

  constructor(private readonly options: BypassDeskOptions) {}

  /** Starts following toolsrv (and keeps trying, a second apart or when told to retry, while it cannot). */
  start(): void {
    this.following ??= this.follow();
  }

  /**
   * toolsrv ended (`why`): the requests it held are gone with it, and the next toolsrv numbers its own from
   * 1 again. Each one still waiting is noted as lost in its agent's chat (the agent may ask again), and
   * every request is forgotten; the follower follows the next toolsrv (see retry).
   */
  toolsrvEnded(why: string): void {
    for (const k of this.known.values()) {
      if (k.decision === "pending") this.decided(k, `lost: toolsrv ended (${why}) before it was decided`);
    }
    this.known.clear();
    this.watching.clear();
    this.seenPending = new Set();
    this.pending.set("");
  }

  /** Follows toolsrv again now rather than at the next attempt (a new toolsrv serves). */
  retry(): void {
    this.#retryNow?.();
  }

  async close(): Promise<void> {
    this.stopping.abort();
    this.retry();
    await this.conn.get()?.close();
    await this.following;
  }

  list(): KnownRequest[] {
    return [...this.known.values()];
  }

  get(id: number): KnownRequest | undefined {
    return this.known.get(id);
  }

  /** toolsrv's namespace as the owner: for reading a request's files there. */
  async ownerFsys(signal?: AbortSignal): Promise<Fsys> {
    return (await this.ownerConn(signal)).fsys;
  }

  /** The owner's connection to toolsrv, waiting a few seconds for it (at start, or after toolsrv went away). */
  private async ownerConn(signal?: AbortSignal): Promise<BypassConn> {
    const limit = AbortSignal.any([AbortSignal.timeout(5000), this.stopping.signal]);
    const waiting = signal ? AbortSignal.any([limit, signal]) : limit;
    for (;;) {
      const conn = this.conn.get();
      if (conn) return conn;
      signal?.throwIfAborted();
      try {
        await this.conn.changed(waiting);
      } catch {
        signal?.throwIfAborted();
        throw new Error("toolsrv's bypass broker cannot be reached now");
      }
    }
  }

  /** The operations toolsrv's bypass policy offers (its `bypass/operations`). */
  async operations(signal?: AbortSignal): Promise<string> {
    return (await this.ownerConn(signal)).operations(signal);
  }

  /**
   * Files a request for the agent `uname` in its session's directory, as that agent; resolves with the id.
   * The agent's chat says so, and says how it was decided when that is at once (by the policy).
   */
  async file(uname: string, body: string): Promise<number> {
    const agent = this.options.agent(uname);
    if (!agent)
      throw new Error("bypass requests are filed by agents, for their tools (bypass_request), not by people");
    const filing = parseFiling(body);
    const waiting = this.list().filter((k) => k.agent === uname && k.decision === "pending").length;
    if (waiting >= MAX_PENDING_PER_AGENT)
      throw new Error(`${uname} has ${waiting} bypass requests waiting already; wait for a decision`);
    const conn = await BypassConn.dial({
      address: this.options.toolsrvAddress,
      uname,
      ...(this.options.agentAuth && { authenticator: this.options.agentAuth }),
    });
    let id: number;
    let decision: string;
    let argv: string[];
    try {
      id = await conn.file({ ...filing, cwd: agent.cwd });
      [decision, { argv }] = await Promise.all([conn.decision(id), conn.request(id)]);
    } finally {
      await conn.close();
    }
    const known = this.remember({
      id,
      agent: uname,
      operation: filing.operation,
      command: argv.join(" "),
      reason: filing.reason,
      cwd: agent.cwd,
    });
    this.noteFiled(known, decision === "pending");
    if (decision === "pending") {
      this.watching.add(id);
    } else {
      this.decided(known, decision);
    }
    return id;
  }

  /** The owner's decision, passed on to toolsrv as the owner. */
  async decide(id: number, decision: "approve" | "deny", reason = ""): Promise<void> {
    await (await this.ownerConn()).decide(id, decision, reason);
  }

  private async follow(): Promise<void> {
    const { log } = this.options;
    let complained = false;
    while (!this.stopping.signal.aborted) {
      try {
        const conn = await this.dialOwner();
        this.conn.set(conn);
        if (complained) log.info("following toolsrv's bypass broker again");
        complained = false;
        for await (const list of conn.follow(this.stopping.signal)) await this.apply(conn, list);
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        if (!complained) log.warn(`cannot follow toolsrv's bypass requests: ${(error as Error).message}`);
        complained = true;
        const conn = this.conn.get();
        this.conn.set(undefined);
        await conn?.close();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000).unref();
          this.#retryNow = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#retryNow = undefined;
      }
    }
  }

  private async dialOwner(): Promise<BypassConn> {
    let last: unknown;
    for (const authenticator of this.options.ownerAuth) {
      try {
        return await BypassConn.dial({
          address: this.options.toolsrvAddress,
          uname: this.options.owner,
          ...(authenticator && { authenticator }),
        });
      } catch (error) {
        last = error;
      }
    }
    throw last ?? new Error("no way to attach as the owner");
  }

  /** A new pending list: what is new waits for the owner; what has gone was decided. */
  private async apply(conn: BypassConn, list: PendingBypass[]): Promise<void> {
    const now = new Set(list.map((p) => p.id));
    for (const p of list) {
      let known = this.known.get(p.id);
      if (!known) {
        const r = await conn.request(p.id).catch(() => undefined);
        known = this.remember({
          id: p.id,
          agent: p.agent,
          operation: r?.operation ?? p.operation,
          command: r ? r.argv.join(" ") : p.command,
          reason: r?.reason ?? p.reason,
          cwd: r?.cwd ?? "",
        });
      }
      this.noteFiled(known, true);
      if (!known.notified) {
        known.notified = true;
        this.options.notify({
          id: known.id,
          agent: known.agent,
          session: known.session ?? "",
          operation: known.operation,
          command: known.command,
          reason: known.reason,
          cwd: known.cwd,
        });
      }
    }
    for (const id of new Set([...this.seenPending, ...this.watching])) {
      if (now.has(id)) continue;
      const decision = await conn.decision(id).catch(() => "");
      // A list older than the filing can lack a request that still waits.
      if (decision === "pending" || decision === "") continue;
      this.watching.delete(id);
      const known = this.known.get(id);
      if (known) this.decided(known, decision);
    }
    this.seenPending = now;
    this.pending.set(
      list.map((p) => `${[p.id, p.agent, p.operation, p.command, p.reason].join("\t")}\n`).join(""),
    );
  }

  private remember(r: Pick<KnownRequest, "id" | "agent" | "operation" | "command" | "reason" | "cwd">) {
    const existing = this.known.get(r.id);
    if (existing) return existing;
    const known: KnownRequest = {
      ...r,
      session: this.options.agent(r.agent)?.session,
      decision: "pending",
      filedNoted: false,
      notified: false,
    };
    this.known.set(r.id, known);
    if (this.known.size > KEPT) {
      const oldest = [...this.known.values()].find((k) => k.decision !== "pending");
      if (oldest) this.known.delete(oldest.id);
    }
    return known;
  }

  private noteFiled(k: KnownRequest, waiting: boolean): void {
    if (k.filedNoted) return;
    k.filedNoted = true;
    const wait = waiting
      ? `; waiting for ${this.options.owner} (ollie approve ${k.id}, or ollie deny ${k.id} REASON)`
      : "";
    this.options
      .agent(k.agent)
      ?.note(
        `· bypass request ${k.id}: ${k.operation} (${oneLine(k.command)}) outside the sandbox, because ${oneLine(k.reason)}${wait}`,
      );
  }

  private decided(k: KnownRequest, decision: string): void {
    if (k.decision !== "pending") return;
    k.decision = decision;
    this.options.agent(k.agent)?.note(`· bypass request ${k.id} ${decision}`);
    this.options.log.info(`bypass request ${k.id} of ${k.agent} (${k.operation}): ${decision}`);
  }
}
