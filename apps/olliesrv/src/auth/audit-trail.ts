/**
 * The audit trail: one line per refusal to `log` (the daemon's `audit` category), at most `perWindow` lines
 * per source in each window; the rest are counted and summed up once the window ends (`… and 4,912 more
 * refusals from unix in the last 10 s`), so a flood of refusals cannot flood the log. The same bound serves
 * any other line a client can cause again and again (`what` names them in the sum).
 */
export class AuditTrail {
  private readonly windows = new Map<string, { lines: number; suppressed: number }>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly perWindow = 20,
    private readonly windowMs = 10_000,
    private readonly what = "refusals",
  ) {}

  record(line: string, source: string): void {
    let w = this.windows.get(source);
    if (!w) {
      w = { lines: 0, suppressed: 0 };
      this.windows.set(source, w);
      setTimeout(() => this.close(source), this.windowMs).unref();
    }
    if (w.lines < this.perWindow) {
      w.lines++;
      this.log(line);
    } else {
      w.suppressed++;
    }
  }

  private close(source: string): void {
    const w = this.windows.get(source);
    this.windows.delete(source);
    if (w && w.suppressed > 0)
      this.log(
        `… and ${w.suppressed.toLocaleString("en")} more ${this.what} from ${source} in the last ${this.windowMs / 1000} s`,
      );
  }
}

/** Where a refusal came from, for the trail: a TCP peer's host (not its port), or the principal. */
export function auditSource(peerOrUname: string): string {
  const tcp = /^tcp!(.*)!\d+$/.exec(peerOrUname);
  return tcp ? `tcp!${tcp[1]}` : peerOrUname;
}
