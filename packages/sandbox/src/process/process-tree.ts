import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** The variable that marks every process of one run; descendants inherit it through any detaching. */
export const TREE_VARIABLE = "OLLIE_PROCESS_TREE";

const LAST_PID = "/proc/sys/kernel/ns_last_pid";
/** How often a sweep looks again for processes it killed that have not ended yet. */
const SWEEP_POLL_MS = 5;
/** How long a sweep waits for the processes it killed to end. */
const SWEEP_WAIT_MS = 10_000;

function lastPid(): number | undefined {
  try {
    return Number(readFileSync(LAST_PID, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * A mark for the processes of one run: a process group ends with one signal, but a child that calls
 * `setsid`, double-forks or daemonizes leaves the group — never its environment. On Linux, `sweep` finds the
 * processes that carry the mark among those started since the mark was made, and kills them; elsewhere it
 * finds nothing. A process that clears its environment is not found: hooks and prompt commands are the
 * user's own, and this is against accidents, not attacks (tools are confined by the sandbox's launcher).
 */
export class ProcessTreeMark {
  readonly id = randomUUID();
  private readonly since = lastPid();

  /** The variable to add to the run's environment. */
  get env(): Record<string, string> {
    return { [TREE_VARIABLE]: this.id };
  }

  /**
   * SIGKILLs every marked process and resolves once none is left: a killed process may have forked
   * meanwhile, and one that was sent SIGKILL still runs (and still holds what it held) until the kernel
   * schedules its exit, which on a busy machine takes a while. `started`, the run's own first process: when
   * no pid was handed out after it, nothing else can carry the mark. Gives up waiting after
   * `SWEEP_WAIT_MS` (a process in uninterruptible sleep dies only when it wakes), having killed all it found.
   */
  async sweep(started?: number): Promise<void> {
    if (this.since === undefined || (started !== undefined && lastPid() === started)) return;
    const marker = `${TREE_VARIABLE}=${this.id}`;
    const deadline = performance.now() + SWEEP_WAIT_MS;
    for (;;) {
      const found = this.marked(marker);
      if (found.length === 0) return;
      for (const pid of found) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
      if (performance.now() > deadline) return;
      await sleep(SWEEP_POLL_MS);
    }
  }

  /** Live processes carrying `marker`, among the pids handed out since the mark was made. */
  private marked(marker: string): number[] {
    const since = this.since!;
    const now = lastPid() ?? since;
    // Pids count up and wrap around at pid_max.
    return processesMarked(marker, (pid) =>
      now >= since ? pid > since && pid <= now : pid > since || pid <= now,
    );
  }
}

/**
 * The live processes whose `/proc/PID/FILE` — their environment or their command line, as NUL-separated
 * words — `test` accepts, among those `among` accepts. A zombie's read empty: it runs nothing.
 */
export function processesWhere(
  file: "environ" | "cmdline",
  test: (words: string[]) => boolean,
  among: (pid: number) => boolean = () => true,
): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || !among(pid)) continue;
    try {
      if (test(readFileSync(`/proc/${pid}/${file}`, "latin1").split("\0"))) found.push(pid);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

/** The live processes whose environment holds `marker` (NAME=VALUE), among those `among` accepts. */
export function processesMarked(marker: string, among: (pid: number) => boolean = () => true): number[] {
  return processesWhere("environ", (words) => words.includes(marker), among);
}
