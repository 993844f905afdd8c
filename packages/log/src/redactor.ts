/** What a secret is replaced with; `Secret` in @ollie/backends prints the same. */
export const REDACTED = "[redacted]";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Takes secrets out of text: every occurrence of a known secret (the longest first, so one that contains
 * another goes whole), then whatever the caller's own `redact` function removes.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  /** Rebuilt on the first use after a secret is added. */
  private pattern: RegExp | undefined;

  constructor(
    secrets: Iterable<string> = [],
    private readonly redact?: (text: string) => string,
  ) {
    for (const secret of secrets) this.add(secret);
  }

  /** An empty string is no secret, and would match everywhere: it is ignored. */
  add(secret: string): void {
    if (secret === "" || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.pattern = undefined;
  }

  apply(text: string): string {
    if (this.secrets.size > 0) {
      this.pattern ??= new RegExp(
        [...this.secrets]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join("|"),
        "g",
      );
      text = text.replace(this.pattern, REDACTED);
    }
    return this.redact ? this.redact(text) : text;
  }
}
