import { WatchedValue } from "@ollie/virtfs";
import { limitThatStopped } from "../exec/limit-stop.js";
import type { ToolOutcome, ToolRun } from "../exec/run-tool.js";

/** A tool process the namespace shows under proc/. */
export interface ProcEntry {
  readonly id: number;
  readonly uname: string;
  readonly args: Record<string, unknown>;
  readonly cwd: string;
  readonly detached: boolean;
  readonly run: ToolRun;
  /**
   * `running`, `exited N`, `killed by SIGNAL`, `timed out`, `cancelled`, `stopped: it reached …` (a resource
   * limit), `refused: …` or `failed: …`.
   */
  readonly status: WatchedValue<string>;
  outcome?: ToolOutcome;
  /** Where the agent's last process_output of it stopped reading: where the next one starts by default. */
  cursor: number;
}

export function describeOutcome(o: ToolOutcome): string {
  if (o.launcherError) return `refused: ${o.launcherError}`;
  if (o.failure) return `failed: ${o.failure.split("\n", 1)[0]}`;
  if (o.timedOut) return "timed out";
  if (o.cancelled) return "cancelled";
  const stoppedBy = limitThatStopped(o);
  if (stoppedBy) return `stopped: it reached ${stoppedBy.text}`;
  if (o.exitCode === null) return `killed by ${o.signal}`;
  return `exited ${o.exitCode}`;
}

/**
 * The running tool processes, and the last `keepFinished` that ended of each kind — detached and not — so a
 * background process's output can still be read after it is done however many ordinary calls follow it.
 */
export class ProcTable {
  private readonly procs = new Map<number, ProcEntry>();
  private nextId = 1;

  constructor(private readonly keepFinished = 64) {}

  add(entry: Omit<ProcEntry, "id" | "status" | "cursor">): ProcEntry {
    const proc: ProcEntry = { ...entry, id: this.nextId++, status: new WatchedValue("running"), cursor: 0 };
    this.procs.set(proc.id, proc);
    void proc.run.done.then((outcome) => {
      proc.outcome = outcome;
      proc.status.set(describeOutcome(outcome));
      this.prune();
    });
    return proc;
  }

  get(id: number): ProcEntry | undefined {
    return this.procs.get(id);
  }

  list(): ProcEntry[] {
    return [...this.procs.values()];
  }

  /** How many detached processes of `uname` still run. */
  runningDetached(uname: string): number {
    return this.list().filter((p) => p.uname === uname && p.detached && !p.outcome).length;
  }

  /** Kills every process still running (shutdown). */
  killAll(): Promise<unknown> {
    const running = this.list().filter((p) => !p.outcome);
    for (const p of running) p.run.kill();
    return Promise.all(running.map((p) => p.run.done));
  }

  private prune(): void {
    for (const detached of [false, true]) {
      const finished = this.list().filter((p) => p.outcome && p.detached === detached);
      for (const p of finished.slice(0, Math.max(0, finished.length - this.keepFinished)))
        this.procs.delete(p.id);
    }
  }
}
