import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CatalogEntry } from "../catalog/tool-catalog.js";
import { type RunOptions, startTool, type ToolRequest } from "../exec/run-tool.js";
import type { ProcEntry, ProcTable } from "./proc-table.js";

/** How long a companion may run before toolsrv ends it (the next call that needs it starts another). */
export const COMPANION_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * The companions agents' tools need (`ollie:companion FILE`): long-lived helpers such as a broker that keeps
 * language servers between calls. One per agent and file, started detached on the first call that needs it
 * — in that call's directory, with its environment and sandbox — and listed in `proc/` as the agent's, so
 * it is seen, killed by `proc/ID/ctl`, and ended with everything it started when toolsrv stops. A companion
 * that has ended is started again by the next call that needs it.
 */
export class Companions {
  private readonly running = new Map<string, Promise<ProcEntry>>();

  constructor(private readonly procs: ProcTable) {}

  /** Makes sure `uname` has `entry`'s companion running; starts it if not. Rejects if it cannot start. */
  async ensure(
    uname: string,
    entry: CatalogEntry,
    request: ToolRequest,
    options: Omit<RunOptions, "signal">,
  ): Promise<ProcEntry | undefined> {
    const name = entry.meta.companion;
    if (name === undefined) return undefined;
    const file = join(dirname(entry.file), name);
    const key = `${uname}\0${file}`;
    const known = this.running.get(key);
    if (known) {
      const proc = await known.catch(() => undefined);
      if (proc && !proc.outcome) return proc;
      if (this.running.get(key) === known) this.running.delete(key);
    }
    // Shared while it starts, so parallel calls of the agent's tools start one companion, not several.
    let starting = this.running.get(key);
    if (!starting) {
      starting = this.start(uname, { file, meta: companionMeta(name) }, request, options);
      this.running.set(key, starting);
      starting.catch(() => this.running.delete(key));
    }
    return starting;
  }

  private async start(
    uname: string,
    companion: CatalogEntry,
    request: ToolRequest,
    options: Omit<RunOptions, "signal">,
  ): Promise<ProcEntry> {
    await access(companion.file, constants.X_OK).catch(() => {
      throw new Error(`its companion ${companion.file} is missing or not executable`);
    });
    const run = await startTool(companion, { ...request, args: {} }, options);
    return this.procs.add({ uname, args: {}, cwd: request.cwd, detached: true, run });
  }
}

function companionMeta(name: string): CatalogEntry["meta"] {
  return {
    name,
    description: `the companion ${name}`,
    parameters: { type: "object", properties: {} },
    parallelRead: false,
    tier: "hot",
    timeoutMs: COMPANION_LIFETIME_MS,
  };
}
