import type { Socket } from "node:net";

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
  /** Decides each Tattach by what the client claims; throw to refuse it (the message goes to the client). */
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
