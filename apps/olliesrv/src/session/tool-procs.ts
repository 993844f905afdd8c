import type { AgentEvent } from "@ollie/agent-core";
import type { ProcessInfo, ToolsrvConn } from "@ollie/toolsrv/client";

/** How often the list is asked for again while a turn runs, and while only processes left running remain. */
export const PROC_POLL_MS = { busy: 250, running: 1000 };

/** How long after the directory was last looked at the list is kept up to date. */
export const PROC_INTEREST_MS = 30_000;

/**
 * An agent's tool processes at toolsrv, as the `proc/` directory lists them. A directory is listed at
 * once, so this keeps the last list toolsrv gave. While someone looks at the directory (a listing or a
 * walk into it in the last PROC_INTEREST_MS), the list is asked for again when a tool call starts or ends,
 * every PROC_POLL_MS.busy while a turn runs and every PROC_POLL_MS.running while a process it knows still
 * runs (one left in the background); a look at a list older than that asks again too, and a read of
 * `proc/idx` always does. Nothing is asked for an agent nobody watches, a paused agent (it has no
 * processes), or once nothing runs.
 */
export class ToolProcs {
  private known = new Map<number, ProcessInfo>();
  private asking: Promise<ProcessInfo[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** When the list was last asked for, and when someone last looked at it (performance.now()). */
  private askedAt = Number.NEGATIVE_INFINITY;
  private lookedAt = Number.NEGATIVE_INFINITY;

  /**
   * `changed` hears of a list that differs from the one before (a process started, ended or went): for a
   * watcher that shows the list to ask again when it moves, not on a timer of its own.
   */
  constructor(
    private readonly conn: () => ToolsrvConn | undefined,
    private readonly changed: (running: number) => void = () => {},
  ) {}

  /** The processes as last asked for, oldest first (a look: see the class). */
  list(): ProcessInfo[] {
    this.look();
    return this.sorted();
  }

  private sorted(): ProcessInfo[] {
    return [...this.known.values()].sort((a, b) => a.id - b.id);
  }

  get(id: number): ProcessInfo | undefined {
    this.look();
    return this.known.get(id);
  }

  /** Someone looks: keep the list up to date for a while, and bring a stale one up to date now. */
  private look(): void {
    const now = performance.now();
    this.lookedAt = now;
    if (this.timer === undefined && now - this.askedAt > PROC_POLL_MS.busy && this.conn()) this.poll(0);
  }

  private get watched(): boolean {
    return performance.now() - this.lookedAt < PROC_INTEREST_MS;
  }

  /** Asks toolsrv for the agent's processes now (a look: see the class). */
  refresh(): Promise<ProcessInfo[]> {
    this.lookedAt = performance.now();
    return this.ask();
  }

  /**
   * Asks toolsrv (one question at a time, shared). Not a look: the polls ask too, and were they looks the
   * list would be kept up to date for ever.
   */
  private ask(): Promise<ProcessInfo[]> {
    this.asking ??= (async () => {
      this.askedAt = performance.now();
      const conn = this.conn();
      const procs = conn ? await conn.processes().catch(() => [] as ProcessInfo[]) : [];
      const before = this.known;
      this.known = new Map(procs.map((p) => [p.id, p]));
      const moved =
        before.size !== this.known.size || procs.some((p) => before.get(p.id)?.status !== p.status);
      if (moved) this.changed(procs.filter((p) => p.status === "running").length);
      return this.sorted();
    })().finally(() => {
      this.asking = undefined;
    });
    return this.asking;
  }

  /** Follows the live agent: a call starting or ending, and whether a turn runs. */
  event(e: AgentEvent): void {
    if (e.type === "state") this.busy = e.state !== "idle";
    if (!this.watched) return;
    if (e.type === "call") this.poll(50);
    else if (e.type === "tool" || e.type === "turn") this.poll(0);
  }

  /** Stops asking (the agent closed). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.busy = false;
  }

  private poll(delayMs: number): void {
    if (this.timer !== undefined) {
      if (delayMs > PROC_POLL_MS.busy) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.ask().then((procs) => {
        if (this.timer !== undefined) return;
        if (!this.conn()) this.stop();
        else if (!this.watched) return;
        else if (this.busy) this.poll(PROC_POLL_MS.busy);
        else if (procs.some((p) => p.status === "running")) this.poll(PROC_POLL_MS.running);
      });
    }, delayMs);
    this.timer.unref();
  }
}
