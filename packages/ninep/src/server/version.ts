/** The smallest msize this engine accepts: room for a stat of modest names and an error text. */
export const MIN_MSIZE = 256;

export type VersionOutcome = { version: string; msize: number } | { error: string };

/**
 * Answers a Tversion as version(5) asks: any "9Pnnnn" with nnnn ≥ 2000 (dialect suffixes such as ".u" or
 * ".L" dropped) is answered "9P2000"; anything else "unknown". The msize is the smaller of the two sides'.
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
  return { version: "9P2000", msize };
}
