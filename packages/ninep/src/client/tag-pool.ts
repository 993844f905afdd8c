import { NOTAG } from "../codec/constants.js";

/** Hands out 9P tags; when all 65535 are in flight, callers wait for one to come back. */
export class TagPool {
  private readonly free: number[] = [];
  private next = 0;
  private readonly waiters: Array<(tag: number) => void> = [];

  acquire(): number | Promise<number> {
    const tag = this.free.pop();
    if (tag !== undefined) return tag;
    if (this.next < NOTAG) return this.next++;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(tag: number): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(tag);
    else this.free.push(tag);
  }
}
