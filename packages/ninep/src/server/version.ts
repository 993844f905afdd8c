/** The smallest msize this engine accepts: room for a stat of modest names and an error text. */
export const MIN_MSIZE = 256;

export type VersionOutcome = { version: string; msize: number } | { error: string };

/**
 * Answers a Tversion as version(5) asks: "9P2000.L" exactly is answered "9P2000.L" (Linux's dialect, which
 * diod's clients and the kernel's v9fs speak); any other "9Pnnnn" with nnnn ≥ 2000 (suffixes such as ".u"
 * dropped) is answered "9P2000"; anything else "unknown". The msize is the smaller of the two sides'.
 */
export function negotiateVersion(requested: string, clientMsize: number, maxMsize: number): VersionOutcome {
  const msize = Math.min(clientMsize, maxMsize);
  const base = requested.split(".", 1)[0]!;
  const digits = base.slice(2);
  if (!base.startsWith("9P") || !/^[0-9]+$/.test(digits) || Number(digits) < 2000) {
    return { version: "unknown", msize };
  }
  if (msize < MIN_MSIZE) {
    return { error: `msize ${clientMsize} is too small (minimum ${MIN_MSIZE})` };
  }
  return { version: requested === "9P2000.L" ? "9P2000.L" : "9P2000", msize };
}
