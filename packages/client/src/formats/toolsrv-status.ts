/**
 * The toolsrv olliesrv started and watches, as `stats` shows it: `up`, `restarting` (the last one died and
 * the next is starting) or `down` (it keeps dying, and the next start waits).
 */
export interface ToolsrvStatus {
  state: "up" | "restarting" | "down";
  /** When it came up, or when the last one died (ISO 8601, as olliesrv wrote it). */
  since: string;
  /** Its process id, while up. */
  pid?: number;
  /** How many times olliesrv started it again. */
  restarts: number;
  /** How the last one ended: `killed by SIGKILL`, `exit status 1`. */
  lastExit?: string;
  /** When the next start is, while down. */
  nextStart?: string;
}

const STATES = new Set<string>(["up", "restarting", "down"]);

/**
 * toolsrv's lines of the daemon's `stats`; undefined for a toolsrv olliesrv was given (`toolsrv external`),
 * which it does not watch, or a daemon that says nothing of it.
 */
export function parseToolsrvStatus(stats: string): ToolsrvStatus | undefined {
  const values = new Map<string, string>();
  for (const line of stats.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) values.set(line.slice(0, space), line.slice(space + 1));
  }
  const state = values.get("toolsrv");
  if (state === undefined || !STATES.has(state)) return undefined;
  const pid = values.get("toolsrv-pid");
  const lastExit = values.get("toolsrv-last-exit");
  const nextStart = values.get("toolsrv-next-start");
  return {
    state: state as ToolsrvStatus["state"],
    since: values.get("toolsrv-since") ?? "",
    ...(pid !== undefined && { pid: Number(pid) }),
    restarts: Number(values.get("toolsrv-restarts") ?? 0),
    ...(lastExit !== undefined && { lastExit }),
    ...(nextStart !== undefined && { nextStart }),
  };
}
