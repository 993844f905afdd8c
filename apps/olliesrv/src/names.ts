/**
 * The shapes of the names olliesrv builds paths and principals from. A name read from a file or a request
 * is checked against these before it is used: none can leave the directory it is meant for.
 */

/** A session id as `newSessionId` makes them: nanoseconds since the epoch, a dash, six hex digits. */
export const SESSION_ID = /^\d{19}-[0-9a-f]{6}$/;

/** An agent's name within its session (`main`): part of its uname and of its temporary directory. */
export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** An agent profile's name: the base name of `agents/NAME.json`. */
export const PROFILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Refuses a profile name that is not one, saying what one is. */
export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name) || name.includes(".."))
    throw new Error(
      `'${name}' is not a profile name (letters, digits, '_', '.', '-'; not starting with '.')`,
    );
  return name;
}
