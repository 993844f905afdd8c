/** Where a session's tools run: an ssh destination and, optionally, the directory they work in there. */
export interface RemoteTarget {
  /** `[user@]host`, as ssh takes it (a Host of the user's ~/.ssh/config included). */
  destination: string;
  /** The working directory on the host; the session's own when absent. */
  dir?: string;
}

/**
 * Reads `[user@]host[:dir]`. A destination that ssh could read as an option (a leading '-'), or with
 * spaces or control characters, is refused: it is passed to ssh as one argument and must mean a host.
 */
export function parseRemoteTarget(text: string): RemoteTarget {
  const colon = text.indexOf(":");
  const destination = colon < 0 ? text : text.slice(0, colon);
  const dir = colon < 0 ? undefined : text.slice(colon + 1);
  if (
    !/^(?:[\w.+-]+@)?[\w.-]+$/.test(destination) ||
    destination.startsWith("-") ||
    destination.includes("@-")
  ) {
    throw new Error(`'${destination}' is not an ssh destination ([user@]host)`);
  }
  if (dir !== undefined && (dir === "" || /[\0\n\r]/.test(dir)))
    throw new Error(`'${dir}' is not a directory`);
  return { destination, ...(dir !== undefined && { dir }) };
}

/** `[user@]host[:dir]` again. */
export const formatRemoteTarget = (t: RemoteTarget) =>
  t.dir === undefined ? t.destination : `${t.destination}:${t.dir}`;

/** A word for a POSIX shell on the remote host: single-quoted, with each quote in it escaped. */
export const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
