/**
 * A cost in US dollars as olliesrv writes it (an agent's `cost` file) and `ollie` shows it: `$0.0123`. Four
 * places, since a turn of a cheap model costs fractions of a cent. It has no imports, so the `ollie` command
 * can use it without loading the daemon.
 */
export function dollars(usd: number): string {
  return `$${usd.toFixed(4)}`;
}
