/**
 * Lines a client can cause again and again — refusals, dropped connections — written to `log` at most
 * `perWindow` per source (a user, a TCP host, a principal) in each window; the rest are counted and summed up
 * once the window ends (`… and 4,912 more refusals from uid 1000 in the last 10 s`, `what` naming them), so
 * that no flood of connections floods the log.
 */
export class RateLimitedLines {
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
