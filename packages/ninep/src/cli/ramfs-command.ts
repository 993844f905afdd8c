import { parseArgs } from "node:util";
import { Ramfs } from "../ramfs/ramfs.js";
import { serveUntilSignal } from "../server/serve-until-signal.js";
import { NinepServer } from "../server/server.js";
import { defaultUname, formatAddress, parseAddress, serviceAddress } from "../transport/address.js";
import type { Io } from "./commands.js";

/** `ninep ramfs`: serves an in-memory tree until SIGINT or SIGTERM, then removes its socket. */
export async function ramfsCommand(
  args: string[],
  io: Io,
  globalAddress: string | undefined,
  trace: boolean,
) {
  const { values } = parseArgs({ args, options: { a: { type: "string" }, u: { type: "string" } } });
  const addressText = values.a ?? globalAddress;
  const address = addressText ? parseAddress(addressText) : serviceAddress("ramfs");
  const server = new NinepServer(new Ramfs({ owner: values.u ?? defaultUname() }), {
    ...(trace && { trace: (line: string) => io.stderr.write(`${line}\n`) }),
    onError: (err) => io.stderr.write(`ninep ramfs: ${err.message}\n`),
  });
  await serveUntilSignal(server, address, (listener) => {
    io.stderr.write(`ninep ramfs: serving on ${formatAddress(listener.boundAddress)}\n`);
  });
  await server.close();
  return 0;
}
