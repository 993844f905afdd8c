/**
 * `up`: a toolsrv serves. `restarting`: the last one died and the next is starting. `down`: the last one
 * died and the next start waits (it keeps dying: see Backoff).
 */
export type ToolsrvState = "up" | "restarting" | "down";

/** The state of the toolsrv olliesrv started, as `stats` and `ollie status` show it. */
export interface ToolsrvStatus {
  state: ToolsrvState;
  /** When it came up (`up`), or when the last one died (`restarting`, `down`). */
  since: Date;
  /** The process serving (`up`). */
  pid?: number;
  /** How many times it was started again after a death. */
  restarts: number;
  /** How the last one to end ended (`killed by SIGKILL`, `exit status 1`), once one has. */
  lastExit?: string;
  /** When the next start is tried (`down`). */
  nextStart?: Date;
}

/**
 * The `toolsrv…` lines of `stats` (`name value`): `toolsrv STATE`, `toolsrv-since`, `toolsrv-pid` (up),
 * `toolsrv-restarts`, `toolsrv-last-exit` (once one ended) and `toolsrv-next-start` (down); for a toolsrv
 * olliesrv did not start (`--toolsrv`), and so does not watch, `toolsrv external` alone.
 */
export function toolsrvStats(status: ToolsrvStatus | undefined): string[] {
  if (!status) return ["toolsrv external"];
  return [
    `toolsrv ${status.state}`,
    `toolsrv-since ${status.since.toISOString()}`,
    ...(status.pid !== undefined ? [`toolsrv-pid ${status.pid}`] : []),
    `toolsrv-restarts ${status.restarts}`,
    ...(status.lastExit !== undefined ? [`toolsrv-last-exit ${status.lastExit}`] : []),
    ...(status.nextStart ? [`toolsrv-next-start ${status.nextStart.toISOString()}`] : []),
  ];
}
