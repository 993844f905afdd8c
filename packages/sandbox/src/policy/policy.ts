import type { PolicyOrigins } from "./origins.js";

/** A sandbox policy with its template variables not yet expanded (see `expandPolicy`). */
export interface SandboxPolicy {
  /** Run with the strongest rules the kernel supports when it cannot enforce them all (never without Landlock). */
  bestEffort: boolean;
  /** Skip granted paths that do not exist instead of refusing to run. */
  ignoreMissing: boolean;
  filesystem: {
    /** Readable. */
    ro: string[];
    /** Readable and executable. */
    rox: string[];
    /** Readable and writable, including creating, renaming and removing inside directories. */
    rw: string[];
    /** Readable, writable and executable. */
    rwx: string[];
  };
  network: {
    /** false: no IPv4 or IPv6 sockets at all (TCP, UDP, raw), and no io_uring. */
    enabled: boolean;
    /** With `enabled`: any TCP port. Otherwise only the ports below. */
    unrestricted: boolean;
    /** TCP ports that may be bound (0: any ephemeral port). */
    bindTcp: number[];
    /** TCP ports that may be connected to. */
    connectTcp: number[];
  };
  /** The layers this policy was built from, in order ("built-in defaults", then file paths). */
  sources: string[];
  /** Where each path-list entry was written (file, key, line), for errors that point at it. */
  origins?: PolicyOrigins;
}
