import { type Logger, REDACTED } from "@ollie/log";

/**
 * toolsrv's secrets (its service key, the owner's key), kept from its log and from its telemetry alike: each
 * is added here once, and both replace it wherever it appears. The log's redactor is its own and not
 * exported, so this keeps the same list beside it for the spans' exporter.
 */
export class DaemonSecrets {
  /** Longest first, so a secret that contains another is replaced whole. */
  private readonly known: string[] = [];

  constructor(private readonly log: Logger) {}

  /** An empty string is no secret, and would match everywhere: it is ignored. */
  add(secret: string): void {
    if (secret === "" || this.known.includes(secret)) return;
    this.known.push(secret);
    this.known.sort((a, b) => b.length - a.length);
    this.log.addSecret(secret);
  }

  /** `text` with every known secret replaced by `[redacted]`, as the log writes it. */
  readonly redact = (text: string): string =>
    this.known.reduce((redacted, secret) => redacted.replaceAll(secret, REDACTED), text);
}
