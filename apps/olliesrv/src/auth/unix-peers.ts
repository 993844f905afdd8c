import type { ClassifyPeer, ConnectionPeer } from "@ollie/ninep";
import { confinedBeyond, type PeerCredentials, type PeerCredentialsReader } from "@ollie/sandbox";

/**
 * Who connected to one of olliesrv's Unix sockets, for the connection limits, as the kernel tells it
 * (SO_PEERCRED, asked in batches through `credentials`):
 * - the owner — a process of the daemon's own user, or root, under no seccomp filter olliesrv is not
 *   under — who may always get in (`@ollie/ninep`'s reserve, and no per-peer limit);
 * - the owner's sandboxed tools, `uid N sandboxed`: the same user, but under the launcher's filter, which a
 *   tool cannot shed; all the agents' tools share that one peer's limit;
 * - another user, `uid N`, when the socket's mode lets one in;
 * - `unidentified`: a peer that could not be told (it exited, or the launcher could not run), never the
 *   owner; `unidentified` is told why.
 */
export function unixPeers(
  credentials: PeerCredentialsReader,
  uid: number,
  unidentified: (error: Error) => void = () => {},
): ClassifyPeer {
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

function classify(peer: PeerCredentials, uid: number): ConnectionPeer {
  const sandboxed = confinedBeyond(peer.confinement);
  if (sandboxed) return { key: `uid ${peer.uid} sandboxed` };
  return { key: `uid ${peer.uid}`, owner: peer.uid === uid || peer.uid === 0 };
}
