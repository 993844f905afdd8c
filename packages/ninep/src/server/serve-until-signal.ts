import type { Address } from "../transport/address.js";
import type { Listener } from "../transport/listen.js";
import type { ListenOptions, NinepServer } from "./server.js";

export interface ServeOptions extends ListenOptions {
  /** Stops serving as SIGINT and SIGTERM do, for a daemon that decides to stop on its own. */
  stop?: AbortSignal;
}

/**
 * What a daemon's main does: listens, says so, and waits for SIGINT or SIGTERM (or `options.stop`). The
 * handlers are in place before `onListening` announces the server, so whoever waits for that announcement
 * may signal at once; they are removed again before this returns. Closing the server (and anything else)
 * is the caller's.
 */
export async function serveUntilSignal(
  server: NinepServer,
  address: Address | string,
  onListening: (listener: Listener) => void,
  options: ServeOptions = {},
): Promise<void> {
  const { stop: stopSignal, ...listen } = options;
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  stopSignal?.addEventListener("abort", stop, { once: true });
  if (stopSignal?.aborted) stop();
  try {
    onListening(await server.listen(address, listen));
    await stopped;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    stopSignal?.removeEventListener("abort", stop);
  }
}
