import { chmod } from "node:fs/promises";
import { Errno, type IdentifyPeer, type Listener, type NinepServer } from "@ollie/ninep";
import { confinedBeyond, type PeerCredentials, PeerCredentialsReader, unixPeers } from "@ollie/sandbox";

/**
 * A connection or an attach on the mount socket refused (already on the audit trail, so not logged again):
 * EACCES to a 9P2000.L client.
 */
export class MountRefusal extends Error {
  override readonly name = "MountRefusal";
  readonly errno = Errno.EACCES;
}

export interface MountSocketOptions {
  /** The owner's uname: every attach on the mount socket is made as the owner. */
  owner: string;
  /** The daemon's own uid: the one user (besides root, who can read the owner's key anyway) it serves. */
  uid: number;
  audit: (line: string) => void;
  /** Asks the kernel who connected; shared with the daemon's other Unix listener (default: one of its own). */
  credentials?: PeerCredentialsReader;
}

/**
 * Who may use the mount socket, told by the kernel rather than by a key, for clients that cannot prove one
 * (the kernel's v9fs, diod's tools): a process of the daemon's own user or root (SO_PEERCRED), and not one
 * the sandbox launcher started — its tools run under a seccomp filter the daemon does not, which they cannot
 * shed, while Landlock before ABI 9 does not stop them connecting to a socket by its path. Each attach's
 * numeric n_uname must be the owner's or root's too, since the kernel attaches for whichever user touches a
 * mount.
 */
export function ownerOnly({
  owner,
  uid,
  audit,
  credentials = new PeerCredentialsReader(),
}: MountSocketOptions): IdentifyPeer {
  const refuse = (reason: string): never => {
    audit(`refused the mount socket to ${reason}`);
    throw new MountRefusal(reason);
  };
  return async (socket) => {
    let peer: PeerCredentials;
    try {
      peer = await credentials.read(socket);
    } catch (error) {
      return refuse(`a peer that could not be identified: ${(error as Error).message}`);
    }
    const who = `pid ${peer.pid} (uid ${peer.uid})`;
    if (peer.uid !== uid && peer.uid !== 0) refuse(`${who}: not the owner's user`);
    if (confinedBeyond(peer.confinement))
      refuse(`${who}: it runs under seccomp filters olliesrv does not, as sandboxed tools do`);
    return {
      uname: owner,
      uid,
      admit: ({ nUname }) => {
        if (nUname === undefined || nUname === uid || nUname === 0) return;
        audit(`refused an attach for uid ${nUname} on the mount socket from ${who}`);
        throw new MountRefusal(`permission denied: uid ${nUname} is not the owner's`);
      },
    };
  };
}

/**
 * Serves the namespace on `path` to the owner alone (see ownerOnly), the socket file made 0600; the owner's
 * connections count as the owner's in the connection limits (see unixPeers).
 */
export async function listenMountSocket(
  server: NinepServer,
  path: string,
  options: MountSocketOptions,
): Promise<Listener> {
  const credentials = options.credentials ?? new PeerCredentialsReader();
  const listener = await server.listen(`unix!${path}`, {
    identify: ownerOnly({ ...options, credentials }),
    // Who cannot be told is refused by ownerOnly, which audits it.
    peer: unixPeers(credentials, options.uid),
  });
  await chmod(path, 0o600);
  return listener;
}
