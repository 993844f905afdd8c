/**
 * What a retried request shows of its reply. Its failed attempt streamed a partial reply (`shown`) that the
 * reader has already seen; a retry that starts with the same text is not shown twice — only what it adds
 * is — and one that differs voids what was shown (`discard`) and is shown in full.
 */
export class RetryEcho {
  private matched = 0;
  private passing: boolean;
  private readonly sent: string[] = [];

  constructor(
    private readonly shown: string,
    private readonly show: (delta: string) => void,
    private readonly discard: (partial: string) => void,
  ) {
    this.passing = shown === "";
  }

  text(delta: string): void {
    if (this.passing) {
      this.show(delta);
      return;
    }
    this.sent.push(delta);
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
    this.show(this.sent.join(""));
  }

  /** What the reader has seen once this attempt ends: the attempt's text, or `shown` if it was longer. */
  seen(attemptText: string): string {
    return this.passing || !this.shown.startsWith(attemptText) ? attemptText : this.shown;
  }
}
