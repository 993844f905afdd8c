import { hmacAuthenticator, NinepClient, NinepRemoteError } from "@ollie/ninep";
import { OllieClient } from "../client.js";
import { AttachRefusedError, DialError } from "../errors.js";
import { defaultAddress } from "../ollie-dirs.js";
import { type IdentityOptions, resolveIdentity } from "./identity.js";

/** Where olliesrv is and who to be there; each left out is found as olliesrv's own `ollie` command finds it. */
export interface ConnectOptions extends IdentityOptions {
  /**
   * `unix!PATH`, `tcp!HOST!PORT` or a socket path. Default: `$OLLIE_ADDRESS` (what olliesrv gives its
   * agents' tools), else `unix!$NAMESPACE/ollie`.
   */
  address?: string;
  /**
   * Who to attach as. Default: inside an agent's tool (`OLLIE_UNAME` and `OLLIE_KEY` set, and no `key` or
   * `keyFile` given), that agent; otherwise the account running the process.
   */
  uname?: string;
  /** The secret that proves `uname`, as text. */
  key?: string;
  /**
   * A file holding that secret. Default: the owner key olliesrv made at its first start,
   * `$XDG_DATA_HOME/ollie/keys/owner.key` (a copy of it reaches a TCP listener from elsewhere).
   */
  keyFile?: string;
  /** The environment the defaults come from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Aborts the dial and the attach. */
  signal?: AbortSignal;
}

/**
 * Dials olliesrv and attaches, proving who the client is with the hmac-sha256 challenge of `@ollie/ninep`.
 * The key is read only once olliesrv has answered. Rejects with a DialError when nothing answers (its
 * `notRunning` says whether olliesrv is simply not running there), a KeyFileError when the key file cannot be
 * read, and an AttachRefusedError carrying olliesrv's reason when it will not have this principal.
 */
export async function connect(options: ConnectOptions = {}): Promise<OllieClient> {
  const { signal } = options;
  const env = options.env ?? process.env;
  const address = options.address ?? (env.OLLIE_ADDRESS || defaultAddress(env));
  let connection: NinepClient;
  try {
    connection = await NinepClient.dial(address, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new DialError(address, (error as NodeJS.ErrnoException).code, (error as Error).message, {
      cause: error,
    });
  }
  try {
    const who = await resolveIdentity(options, env);
    const fsys = await connection
      .attach({ uname: who.uname, authenticator: hmacAuthenticator(who.key), ...(signal && { signal }) })
      .catch((error: unknown) => {
        if (signal?.aborted) throw error;
        const reason = error instanceof NinepRemoteError ? error.ename : (error as Error).message;
        throw new AttachRefusedError(address, who.uname, reason, { cause: error });
      });
    return new OllieClient(connection, fsys, address, who.uname);
  } catch (error) {
    connection.close();
    throw error;
  }
}
