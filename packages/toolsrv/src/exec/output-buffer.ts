/**
 * Keeps a process's output within `limit` bytes however much it writes: the first three quarters of the
 * limit and the last quarter, and the total count, so the result can say how much there was and keep the
 * start (what it was doing) and the end (how it ended).
 */
export class OutputBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(readonly limit: number) {
    this.tailLimit = Math.floor(limit / 4);
    this.headLimit = limit - this.tailLimit;
  }

  get truncated(): boolean {
    return this.total > this.limit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit)
      this.tailBytes -= this.tail.shift()!.length;
  }

  /** The kept text, with a line saying how much was left out between the two parts. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    if (!this.truncated) return head + Buffer.concat(this.tail).toString("utf8");
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    const cut = this.total - this.headBytes - tail.length;
    return `${head}\n[${cut.toLocaleString("en")} of ${this.total.toLocaleString("en")} bytes of output left out here]\n${tail.toString("utf8")}`;
  }
}
