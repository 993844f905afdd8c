import type { Logger } from "@ollie/log";
import { WatchedValue } from "@ollie/virtfs";
import { describeExit, type ToolsrvProcess } from "./toolsrv-process.js";
import type { ToolsrvState, ToolsrvStatus } from "./toolsrv-status.js";

/**
 * How soon a toolsrv that died is started again: at once the first time; when it keeps dying (it served
 * less than `stableMs` each time, or could not start), after `firstMs`, then twice as long each time, up to
 * `mostMs`.
 */
export interface Backoff {
  firstMs: number;
  mostMs: number;
  stableMs: number;
}

const DEFAULT_BACKOFF: Backoff = { firstMs: 500, mostMs: 30_000, stableMs: 60_000 };

export interface ToolsrvSupervisorOptions {
  /** Starts a toolsrv: each time with the same arguments, key and address. */
  start(): Promise<ToolsrvProcess>;
  log: Logger;
  backoff?: Backoff;
}

/** What the supervisor holds: the process serving now, if any, and its number (1 for the first). */
interface Current {
  status: ToolsrvStatus;
  process: ToolsrvProcess | undefined;
  run: number;
}

/**
 * The toolsrv olliesrv started, kept running: when it dies — whatever killed it — an ERROR line says how,
 * and it is started again (see Backoff), while agents dial it again at their next use (see supervisedRoute)
 * and the bypass desk follows the new one. Its state (`up`, `restarting`, `down`) is what `stats` and
 * `ollie status` show.
 */
export class ToolsrvSupervisor {
  readonly #options: ToolsrvSupervisorOptions;
  readonly #backoff: Backoff;
  readonly #current: WatchedValue<Current>;
  /** Deaths in a row: reset by a toolsrv that served `stableMs`. */
  #deaths = 0;
  #restarts = 0;
  #lastExit: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;
  readonly #onEnded: Array<(why: string) => void> = [];
  readonly #onUp: Array<() => void> = [];

  private constructor(
    readonly address: string,
    first: ToolsrvProcess,
    options: ToolsrvSupervisorOptions,
  ) {
    this.#options = options;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#current = new WatchedValue<Current>({
      status: { state: "up", since: new Date(), pid: first.pid, restarts: 0 },
      process: first,
      run: 1,
    });
    this.watch(first, 1);
  }

  /** Starts the first toolsrv and watches it; rejects (and watches nothing) when it cannot start. */
  static async start(address: string, options: ToolsrvSupervisorOptions): Promise<ToolsrvSupervisor> {
    return new ToolsrvSupervisor(address, await options.start(), options);
  }

  /** Its state now. */
  status(): ToolsrvStatus {
    return this.#current.get().status;
  }

  /** The number of the toolsrv serving now (or last): 1 for the first, then one more at each start. */
  get run(): number {
    return this.#current.get().run;
  }

  /** Whether toolsrv number `run` has ended (a later one may serve now). */
  hasEnded(run: number): boolean {
    const now = this.#current.get();
    return run < now.run || now.status.state !== "up";
  }

  /** How the last toolsrv to end ended (`killed by SIGKILL`), once one has. */
  get lastExit(): string | undefined {
    return this.#lastExit;
  }

  /** Called with how it ended each time a toolsrv dies (before the next is started). */
  onEnded(listener: (why: string) => void): void {
    this.#onEnded.push(listener);
  }

  /** Called each time a toolsrv started after a death serves. */
  onUp(listener: () => void): void {
    this.#onUp.push(listener);
  }

  /**
   * Resolves with the number of the toolsrv that serves: at once while one is up, and once the one being
   * started serves while it restarts — or while it is down (waiting before the next start, as it keeps
   * dying) if that start is at most `patienceMs` away. Rejects with ToolsrvDownError (since when, why, until
   * when) when it is down for longer, or stopped; and when `signal` aborts.
   */
  async ready(signal: AbortSignal, patienceMs = 0): Promise<number> {
    for (;;) {
      const { status, run } = this.#current.get();
      if (status.state === "up") return run;
      const later = (status.nextStart?.getTime() ?? 0) - Date.now() > patienceMs;
      if (this.#stopping || (status.state === "down" && later)) throw new ToolsrvDownError(status);
      await this.#current.changed(signal);
    }
  }

  /** Resolves once toolsrv number `run` has ended (at once if it has), or rejects when `signal` aborts. */
  async ended(run: number, signal: AbortSignal): Promise<void> {
    while (!this.hasEnded(run)) await this.#current.changed(signal);
  }

  /**
   * Starts nothing again from now on: the daemon is stopping, and a toolsrv that ends now has ended for
   * good. It keeps serving until stop().
   */
  hold(): void {
    this.#stopping = true;
    clearTimeout(this.#timer);
  }

  /** Stops toolsrv for good (the daemon is stopping): nothing is started again. */
  async stop(): Promise<void> {
    this.hold();
    await this.#current.get().process?.stop();
  }

  private set(
    state: ToolsrvState,
    fields: Partial<ToolsrvStatus> & { since: Date },
    process?: ToolsrvProcess,
  ) {
    const { run } = this.#current.get();
    this.#current.set({
      status: {
        state,
        restarts: this.#restarts,
        ...(this.#lastExit !== undefined && { lastExit: this.#lastExit }),
        ...fields,
      },
      process,
      run: process ? run + 1 : run,
    });
  }

  private watch(process: ToolsrvProcess, run: number): void {
    const upSince = Date.now();
    void process.exited.then((exit) => {
      if (this.#stopping || this.#current.get().run !== run) return;
      const why = describeExit(exit);
      const served = Date.now() - upSince;
      this.#deaths = served >= this.#backoff.stableMs ? 1 : this.#deaths + 1;
      this.#lastExit = why;
      const wait = this.delay();
      const again =
        wait === 0
          ? "starting it again"
          : `starting it again in ${seconds(wait)} (it died ${this.#deaths} times in a row)`;
      this.#options.log.error(
        `toolsrv (pid ${process.pid}) died after ${seconds(served)}: ${why}; ${again}. Calls running there ended; agents reconnect at their next call`,
      );
      for (const listener of this.#onEnded) listener(why);
      this.schedule(wait, new Date());
    });
  }

  /** How long to wait before the next start, after `#deaths` deaths in a row. */
  private delay(): number {
    if (this.#deaths <= 1) return 0;
    return Math.min(this.#backoff.firstMs * 2 ** (this.#deaths - 2), this.#backoff.mostMs);
  }

  private schedule(wait: number, since: Date): void {
    if (wait === 0) {
      void this.restart(since);
      return;
    }
    this.set("down", { since, nextStart: new Date(Date.now() + wait) });
    this.#timer = setTimeout(() => void this.restart(since), wait);
  }

  private async restart(since: Date): Promise<void> {
    if (this.#stopping) return;
    this.set("restarting", { since });
    let process: ToolsrvProcess;
    try {
      process = await this.#options.start();
    } catch (error) {
      if (this.#stopping) return;
      this.#deaths++;
      const wait = this.delay();
      this.#options.log.error(
        `toolsrv could not be started again: ${(error as Error).message}; trying again in ${seconds(wait)}`,
      );
      this.schedule(wait, since);
      return;
    }
    if (this.#stopping) {
      await process.stop();
      return;
    }
    this.#restarts++;
    const down = Date.now() - since.getTime();
    this.set("up", { since: new Date(), pid: process.pid }, process);
    this.watch(process, this.#current.get().run);
    this.#options.log.info(`toolsrv is back (pid ${process.pid}) after ${seconds(down)} without one`);
    for (const listener of this.#onUp) listener();
  }
}

/** toolsrv is down: it keeps dying, and the supervisor waits before it starts it again. */
export class ToolsrvDownError extends Error {
  override readonly name = "ToolsrvDownError";
  constructor(readonly status: ToolsrvStatus) {
    const next = status.nextStart ? `; olliesrv starts it again at ${status.nextStart.toISOString()}` : "";
    super(
      `toolsrv is down since ${status.since.toISOString()} (${status.lastExit ?? "stopped"}, ${status.restarts} restarts so far)${next}`,
    );
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
