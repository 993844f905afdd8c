import type { ServerStats } from "@ollie/ninep";
import type { Sessions } from "../session/sessions.js";
import { type ToolsrvStatus, toolsrvStats } from "../toolsrv/toolsrv-status.js";

/** What serves the namespace: its connections, fids and requests are the daemon's. */
export interface StatsSource {
  stats(): ServerStats;
}

/**
 * What the `stats` file shows: what the daemon holds, one `name value` line each — its sessions and agents,
 * and the connections, fids and requests of the servers that serve its namespace (made after the namespace,
 * from it: each is added with `servedBy`) — then the state of its toolsrv (see toolsrvStats). The heap is
 * measured after a full collection when node runs with --expose-gc (for chasing a leak), else as it stands.
 */
export class DaemonStats {
  readonly #servers: StatsSource[] = [];

  constructor(
    private readonly sessions: Sessions,
    /** The state of the toolsrv olliesrv started and watches; undefined for one given with `--toolsrv`. */
    private readonly toolsrv: () => ToolsrvStatus | undefined,
  ) {}

  /** `server` serves the namespace from now on. */
  servedBy(server: StatsSource): void {
    this.#servers.push(server);
  }

  text(): string {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const memory = process.memoryUsage();
    const agents = this.sessions.list().flatMap((s) => [...s.agents.values()]);
    const served = this.#servers.map((s) => s.stats());
    const sum = (key: "connections" | "fids" | "requests") => served.reduce((n, s) => n + s[key], 0);
    return [
      `sessions ${this.sessions.list().length}`,
      `agents ${agents.length}`,
      `agents-live ${agents.filter((a) => a.agent !== undefined).length}`,
      `toolsrv-connections ${agents.filter((a) => a.toolsrv !== undefined).length}`,
      `connections ${sum("connections")}`,
      `fids ${sum("fids")}`,
      `requests ${sum("requests")}`,
      `heap-used ${memory.heapUsed}${gc ? "" : " (not collected first)"}`,
      `rss ${memory.rss}`,
      ...toolsrvStats(this.toolsrv()),
      "",
    ].join("\n");
  }
}
