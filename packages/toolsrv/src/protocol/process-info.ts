/** A tool process as toolsrv's proc/ID/info describes it. */
export interface ProcessInfo {
  id: number;
  tool: string;
  agent: string;
  pid?: number;
  args: Record<string, unknown>;
  cwd: string;
  detached: boolean;
  started: string;
  status: string;
}
