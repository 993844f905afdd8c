import { Errno } from "../../codec/linux/constants.js";
import { errorText } from "../ninep-error.js";

/** How many wrappers deep a cause is looked for. */
const MAX_CAUSES = 8;

/**
 * The errno an error says it is, itself or through its chain of causes (a backend's error wrapping a
 * refused connection, a NinepError wrapping a system error): a positive `errno` (NinepError's), a `code`
 * that names a Linux errno (Node's system errors: `ECONNREFUSED`), an AbortError (EINTR) or a TimeoutError
 * (ETIMEDOUT). Undefined when nothing in it says.
 */
function declaredErrno(err: unknown): number | undefined {
  let e = err;
  for (let depth = 0; depth < MAX_CAUSES && typeof e === "object" && e !== null; depth++) {
    const { errno, code, name, cause } = e as {
      errno?: unknown;
      code?: unknown;
      name?: unknown;
      cause?: unknown;
    };
    if (typeof errno === "number" && Number.isInteger(errno) && errno > 0) return errno;
    if (typeof code === "string" && Object.hasOwn(Errno, code)) return Errno[code as keyof typeof Errno];
    if (name === "AbortError") return Errno.EINTR;
    if (name === "TimeoutError") return Errno.ETIMEDOUT;
    e = cause;
  }
  return undefined;
}

/**
 * The last resort, for a FileServer that throws plain Errors in the words 9P servers have always used
 * (Plan 9's and lib9p's): a message that ends with one of these phrases, in any case. The engine and
 * Ollie's trees never rely on it: their errors carry their errno.
 */
const CONVENTIONAL: ReadonlyArray<readonly [string, number]> = [
  ["file not found", Errno.ENOENT],
  ["file does not exist", Errno.ENOENT],
  ["no such file or directory", Errno.ENOENT],
  ["permission denied", Errno.EACCES],
  ["prohibited", Errno.EPERM],
  ["operation not permitted", Errno.EPERM],
  ["already exists", Errno.EEXIST],
  ["is a directory", Errno.EISDIR],
  ["not a directory", Errno.ENOTDIR],
  ["non-directory", Errno.ENOTDIR],
  ["not empty", Errno.ENOTEMPTY],
  ["interrupted", Errno.EINTR],
];

/**
 * The errno a 9P2000.L client is told for `err`: the one it says it is (see declaredErrno), else — for a
 * plain Error of a FileServer that names none — the one its conventional last words stand for, else
 * `otherwise` (EIO).
 */
export function errnoOf(err: unknown, otherwise: number = Errno.EIO): number {
  const declared = declaredErrno(err);
  if (declared !== undefined) return declared;
  const text = errorText(err).toLowerCase();
  for (const [phrase, errno] of CONVENTIONAL) if (text.endsWith(phrase)) return errno;
  return otherwise;
}
