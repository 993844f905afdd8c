/** A FIFO with a fixed capacity; push and shift are O(1) (a head index, not Array.shift). */
export class BoundedQueue<T> {
  private items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** False when full: nothing was added. */
  push(item: T): boolean {
    if (this.length >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T;
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns everything. */
  drain(): T[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }

  toArray(): T[] {
    return this.items.slice(this.head);
  }
}
