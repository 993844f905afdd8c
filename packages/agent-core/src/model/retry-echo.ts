/**
 * The text one attempt streams, and what of it is shown. A failed earlier attempt streamed a partial reply (`shown`) that the
 * reader has already seen; a retry that starts with the same text is not shown twice — only what it adds
 * is — and one that differs voids what was shown (`discard`) and is shown in full.
 */
export class RetryEcho {
  private matched = 0;
  private passing: boolean;
  private readonly parts: string[] = [];

  constructor(
    private readonly shown: string,
    private readonly show: (delta: string) => void,
    private readonly discard: (partial: string) => void,
  ) {
    this.passing = shown === "";
  }

  text(delta: string): void {
    this.parts.push(delta);
    if (this.passing) {
      this.show(delta);
      return;
    }
    const expected = this.shown.slice(this.matched, this.matched + delta.length);
    if (delta.startsWith(expected)) {
      this.matched += expected.length;
      if (this.matched < this.shown.length) return;
      // The retry has caught up with what was shown: from here on it is new.
      this.passing = true;
      const rest = delta.slice(expected.length);
      if (rest !== "") this.show(rest);
      return;
    }
    this.passing = true;
    this.discard(this.shown);
    this.show(this.streamed);
  }

  /** All the text this attempt streamed. */
  get streamed(): string {
    return this.parts.join("");
  }

  /** What the reader has seen once this attempt ends: its text, or `shown` if that was longer. */
  seen(): string {
    const text = this.streamed;
    return this.passing || !this.shown.startsWith(text) ? text : this.shown;
  }
}
