import type { Dialect } from "../codec/decode.js";
import type { Rversion, Tversion } from "../codec/types.js";
import { DialectRefusedError, NinepRemoteError } from "./errors.js";

/** What a Tversion settled: the dialect both sides speak and the msize. */
export interface Settled {
  dialect: Dialect;
  msize: number;
}

/**
 * Sends the Tversion (through `rpc`) asking for `asked` and an msize of at most `msize`, and checks the
 * answer. A server that does not speak `asked` is a DialectRefusedError: it answered with Rlerror, which
 * only 9P2000.L has (diod answers a Tversion of 9P2000 so), or with another version, as version(5) has a
 * server answer `unknown`. A 9P2000 answer to 9P2000.L is accepted: the client speaks 9P2000 then.
 */
export async function negotiateVersion(
  rpc: (request: Omit<Tversion, "tag">) => Promise<Rversion>,
  asked: Dialect,
  msize: number,
): Promise<Settled> {
  let reply: Rversion;
  try {
    reply = await rpc({ type: "Tversion", msize, version: asked });
  } catch (err) {
    if (err instanceof NinepRemoteError && err.errno !== undefined) {
      throw new DialectRefusedError(asked, `it answered Rlerror: ${err.ename}`, { cause: err });
    }
    throw err;
  }
  if (reply.version !== "9P2000" && reply.version !== asked) {
    throw new DialectRefusedError(asked, `it answered version '${reply.version}'`);
  }
  if (reply.msize > msize || reply.msize < 256) {
    throw new NinepRemoteError(`server offered unacceptable msize ${reply.msize}`, "Tversion");
  }
  return { dialect: reply.version as Dialect, msize: reply.msize };
}
