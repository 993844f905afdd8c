import type { Address } from "../transport/address.js";
import type { Listener } from "../transport/listen.js";
import type { ListenOptions, NinepServer } from "./server.js";

/**
 * What a daemon's main does: listens, says so, and waits for SIGINT or SIGTERM. The handlers are in place
 * before `onListening` announces the server, so whoever waits for that announcement may signal at once;
 * they are removed again before this returns. Closing the server (and anything else) is the caller's.
 */
export async function serveUntilSignal(
  server: NinepServer,
  address: Address | string,
  onListening: (listener: Listener) => void,
  options: ListenOptions = {},
): Promise<void> {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    onListening(await server.listen(address, options));
    await stopped;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
