import { ORDWR } from "@ollie/ninep";
import type { SessionClient } from "./session-client.js";

/**
 * Subscribes to the end of session `id` — its `events` file, filtered to `session.kill`, gives that line and
 * then its end — and resolves once subscribed (so no kill after it is missed). Its `ended` settles when the
 * session ends or olliesrv closes the connection, saying which; it never rejects, and an abort of `signal`
 * leaves it pending. (An object, since a promise resolved with a promise would wait for it.)
 */
export async function watchSessionEnd(
  client: SessionClient,
  id: string,
  signal: AbortSignal,
): Promise<{ ended: Promise<string> }> {
  const events = await client.fsys.open(`session/${id}/events`, ORDWR).catch((error: unknown) => {
    throw new Error(`cannot follow session ${id}: ${(error as Error).message}`);
  });
  await events.write("session.kill");
  const gone = client.closed.then(() => "olliesrv closed the connection");
  const killed = events.read(0, 4096, signal).then(
    () => `session ${id} was killed`,
    (error: unknown) =>
      signal.aborted
        ? new Promise<string>(() => {})
        : `cannot follow session ${id}: ${(error as Error).message}`,
  );
  return { ended: Promise.race([gone, killed]) };
}
