/** How confined a process is, from its /proc status. */
export interface Confinement {
  noNewPrivs: boolean;
  /** 0: no seccomp, 1: strict, 2: filtered. */
  seccompMode: number;
  /** Seccomp filters in force (undefined before Linux 5.9, which does not count them). */
  seccompFilters: number | undefined;
}

/** Who connected to a Unix socket, as the kernel recorded it at the connect, and how confined it is. */
export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
  confinement: Confinement;
}
