import type { MemoryLimit } from "./limit-values.js";
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
  /**
   * Resource limits, each null when the policy sets none. The first two hold for a group of commands together
   * (toolsrv makes one per agent: all its calls and background processes), through a cgroup where the kernel
   * lets this process make one, else per command or process through rlimits; the last two hold per process.
   */
  limits: {
    /** Tasks (processes and threads) running at once. */
    processes: number | null;
    /** Memory of the processes together: bytes, or a share of the machine's RAM. */
    memory: MemoryLimit | null;
    /** Bytes: the largest file a process may write. */
    fileSize: number | null;
    /** Seconds of CPU time of each process. */
    cpuTime: number | null;
  };
  /** Commands may create user namespaces (and inside them the other kinds); refused by seccomp otherwise. */
  userNamespaces: boolean;
  /** The layers this policy was built from, in order ("built-in defaults", then file paths). */
  sources: string[];
  /** Where each path-list entry was written (file, key, line), for errors that point at it. */
  origins?: PolicyOrigins;
}
