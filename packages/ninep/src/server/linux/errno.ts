import { Errno } from "../../codec/linux/constants.js";
import { errorText } from "../ninep-error.js";

/**
 * How an error becomes a Linux errno in 9P2000.L, where Rlerror carries a number: an error that says
 * its `errno` (a NinepError made with one) keeps it; otherwise its text is matched against this table, in
 * order, the first match winning; anything else is EIO. The texts are those the engine and Ollie's trees
 * use (see the package's README for the table as users read it).
 */
const TABLE: ReadonlyArray<readonly [RegExp, number]> = [
  [/^interrupted$|flushed|fid clunked|session reset|connection closed/, Errno.EINTR],
  // diod's clients and the kernel read ENOENT from Tauth as "no authentication needed".
  [/authentication not required/, Errno.ENOENT],
  [/not found|no such|does not exist|unknown (file|name)/i, Errno.ENOENT],
  [/permission denied|not allowed|refused/i, Errno.EACCES],
  [/prohibited|not permitted|read-only|authentication (required|failed)|belongs to/i, Errno.EPERM],
  [/already exists|exists$/i, Errno.EEXIST],
  [/not empty/i, Errno.ENOTEMPTY],
  [/is a directory/i, Errno.EISDIR],
  [/not a directory|non-directory/i, Errno.ENOTDIR],
  [/unknown fid|duplicate fid|NOFID/, Errno.EBADF],
  [/no space|full/i, Errno.ENOSPC],
  [/too (big|large|long)|exceeds/i, Errno.ERANGE],
  [/bad |invalid|malformed|not open|too small|cannot|must|expected/i, Errno.EINVAL],
];

/** The errno an error stands for (see TABLE). */
export function errnoOf(err: unknown): number {
  const { errno, code } = (err ?? {}) as { errno?: unknown; code?: unknown };
  if (typeof errno === "number" && Number.isInteger(errno) && errno > 0) return errno;
  // Node's own system errors (a FileServer backed by real files) name theirs.
  if (typeof code === "string" && code in Errno) return Errno[code as keyof typeof Errno];
  const text = errorText(err);
  for (const [pattern, errno] of TABLE) if (pattern.test(text)) return errno;
  return Errno.EIO;
}
