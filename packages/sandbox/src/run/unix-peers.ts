import type { Socket } from "node:net";
import type { PeerCredentials } from "./peer-credential-types.js";
import { confinedBeyond } from "./peer-credentials.js";
import type { PeerCredentialsReader } from "./peer-credentials-reader.js";

/**
 * Who a Unix-socket peer is, for a server's connection limits: a name that groups its connections, and
 * whether it is the server's owner (shaped as `@ollie/ninep`'s `ConnectionPeer`).
 */
export interface UnixPeer {
  key: string;
  owner?: boolean;
}

/**
 * Who connected to a daemon's Unix socket, for its connection limits (`@ollie/ninep`'s `listen` takes this
 * as its `peer`), as the kernel tells it (SO_PEERCRED, asked in batches through `credentials`):
 * - the owner — a process of the daemon's own user (`uid`), or root, under no seccomp filter the daemon is
 *   not under — who may always get in (the server's reserve, and no per-peer limit);
 * - the owner's sandboxed commands, `uid N sandboxed`: the same user, but under the launcher's filter,
 *   which a command cannot shed; all of them share that one peer's limit;
 * - another user, `uid N`, when the socket's mode lets one in;
 * - `unidentified`: a peer that could not be told (it exited, or the launcher could not run), never the
 *   owner; `unidentified` is told why.
 */
export function unixPeers(
  credentials: PeerCredentialsReader,
  uid: number,
  unidentified: (error: Error) => void = () => {},
): (socket: Socket) => Promise<UnixPeer> {
  return async (socket) => {
    let peer: PeerCredentials;
    try {
      peer = await credentials.read(socket);
    } catch (error) {
      unidentified(error as Error);
      return { key: "unidentified" };
    }
    return classify(peer, uid);
  };
}

function classify(peer: PeerCredentials, uid: number): UnixPeer {
  const sandboxed = confinedBeyond(peer.confinement);
  if (sandboxed) return { key: `uid ${peer.uid} sandboxed` };
  return { key: `uid ${peer.uid}`, owner: peer.uid === uid || peer.uid === 0 };
}
