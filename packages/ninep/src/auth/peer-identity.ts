import type { Socket } from "node:net";
import { Errno } from "../codec/linux/constants.js";
import { errnoOf } from "../server/linux/errno.js";
import { errorText, NinepError } from "../server/ninep-error.js";

/**
 * Who is at the other end of a connection, decided by the server before it reads anything, for transports
 * whose peer the operating system names (a Unix socket's SO_PEERCRED) and clients that cannot prove a key
 * (the Linux kernel's v9fs, diod's tools). Every attach on the connection is made as `uname`, whatever the
 * client names, and Tauth is answered "authentication not required" (ENOENT in 9P2000.L).
 */
export interface PeerIdentity {
  /** The uname every attach on the connection is made as. */
  uname: string;
  /** The number 9P2000.L clients are told `uname`'s files belong to (Rgetattr's uid and gid). */
  uid?: number;
  /**
   * Decides each Tattach by what the client claims; throw to refuse it. The message goes to a 9P2000 client;
   * a 9P2000.L client is told the error's own errno, or EACCES when it names none.
   */
  admit?(claim: AttachClaim): void;
}

/** What a Tattach claims: its uname, 9P2000.L's numeric n_uname (undefined in 9P2000 or when unset), aname. */
export interface AttachClaim {
  uname: string;
  nUname: number | undefined;
  aname: string;
}

/** Identifies the peer of an accepted socket; a rejection closes the connection unanswered. */
export type IdentifyPeer = (socket: Socket) => Promise<PeerIdentity>;

/** Puts a claim to `identity.admit`: a refusal says its own errno, or EACCES (see PeerIdentity.admit). */
export function admitClaim(identity: PeerIdentity, claim: AttachClaim): void {
  try {
    identity.admit?.(claim);
  } catch (err) {
    throw new NinepError(errorText(err), { errno: errnoOf(err, Errno.EACCES), cause: err });
  }
}
