import { connect, type Socket } from "node:net";
import { type Address, parseAddress } from "./address.js";

/** Opens a stream to a 9P server at an address (see `parseAddress`). */
export function dial(address: Address | string, signal?: AbortSignal): Promise<Socket> {
  const a = typeof address === "string" ? parseAddress(address) : address;
  return new Promise((resolve, reject) => {
    const socket =
      a.kind === "unix" ? connect({ path: a.path }) : connect({ host: a.host, port: a.port, noDelay: true });
    const onAbort = () => {
      socket.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => {
      signal?.removeEventListener("abort", onAbort);
      socket.off("error", onError);
      resolve(socket);
    });
    const onError = (err: Error) => {
      signal?.removeEventListener("abort", onAbort);
      const where = a.kind === "unix" ? a.path : `${a.host}!${a.port}`;
      reject(
        Object.assign(new Error(`dial ${where}: ${err.message}`, { cause: err }), {
          code: (err as NodeJS.ErrnoException).code,
        }),
      );
    };
    socket.once("error", onError);
  });
}
