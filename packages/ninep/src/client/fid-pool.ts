/** Hands out fid numbers, reusing the ones given back. */
export class FidPool {
  private readonly free: number[] = [];
  private next = 0;

  acquire(): number {
    return this.free.pop() ?? this.next++;
  }

  release(fid: number): void {
    this.free.push(fid);
  }
}
