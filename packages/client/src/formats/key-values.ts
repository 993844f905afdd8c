/** `key=value` lines as an object (a value may hold `=`; a line without one is not a pair). */
export function keyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** An ISO time, or undefined for an empty or unreadable one. */
export function isoTime(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
