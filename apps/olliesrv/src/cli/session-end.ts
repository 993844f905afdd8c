import type { OllieClient } from "@ollie/client";

/**
 * Subscribes to the end of session `id` — its events, filtered to `session.kill`, give that record and then
 * their end — and resolves once subscribed (so no kill after it is missed). Its `ended` settles when the
 * session ends or olliesrv closes the connection, saying which; it never rejects, and an abort of `signal`
 * leaves it pending. (An object, since a promise resolved with a promise would wait for it.)
 */
export async function watchSessionEnd(
  client: OllieClient,
  id: string,
  signal: AbortSignal,
): Promise<{ ended: Promise<string> }> {
  const events = await client
    .session(id)
    .events({ topics: "session.kill", signal })
    .catch((error: unknown) => {
      throw new Error(`cannot follow session ${id}: ${(error as Error).message}`);
    });
  const gone = client.closed.then(() => "olliesrv closed the connection");
  const killed = events[Symbol.asyncIterator]()
    .next()
    .then(
      () => `session ${id} was killed`,
      (error: unknown) =>
        signal.aborted
          ? new Promise<string>(() => {})
          : `cannot follow session ${id}: ${(error as Error).message}`,
    )
    .finally(() => events.close());
  return { ended: Promise.race([gone, killed]) };
}
