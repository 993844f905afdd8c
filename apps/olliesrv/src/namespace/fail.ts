import { Errno, errnoOf, NinepError } from "@ollie/ninep";

/**
 * Refuses a request: `message` is the Rerror a 9P2000 client reads, `errno` what a 9P2000.L client (v9fs,
 * diod's tools) is told instead — by default EINVAL, a request the tree will not do as asked.
 */
export function fail(message: string, errno: number = Errno.EINVAL): never {
  throw new NinepError(message, { errno });
}

/**
 * Refuses a request because `error` happened: its words, and the errno it says it is (its own, or a system
 * error's `code` along its causes), else `otherwise`. The error stays the NinepError's cause.
 */
export function failWith(error: unknown, otherwise: number = Errno.EINVAL): never {
  throw new NinepError(error instanceof Error ? error.message : String(error), {
    errno: errnoOf(error, otherwise),
    cause: error,
  });
}
