import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { execa } from "execa";
import { type EnsureOptions, ensureLauncher } from "../launcher/ensure-launcher.js";

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

/**
 * The process, user and group at the other end of a connected Unix socket (SO_PEERCRED), which Node cannot
 * ask: the launcher is handed the socket as a descriptor and asks the kernel, holding the process while it
 * reads its confinement (a peer that exits meanwhile is an error, since its pid could be another's by
 * then). The pid is as this process's PID namespace sees it. Costs a process start, so it suits sockets
 * that are connected to rarely.
 */
export async function peerCredentials(socket: Socket, options: EnsureOptions = {}): Promise<PeerCredentials> {
  if (socket.destroyed) throw new Error("cannot tell who is at the other end of the socket: it is closed");
  const launcher = await ensureLauncher(options);
  const asked = await execa(launcher.path, ["--peer-cred", "3"], {
    stdio: ["ignore", "pipe", "pipe", socket],
    reject: false,
    extendEnv: false,
  });
  const found = /^(\d+) (\d+) (\d+) (\d+) (\d+) (-?\d+)$/.exec(asked.stdout);
  if (asked.exitCode !== 0 || !found)
    throw new Error(
      `cannot tell who is at the other end of the socket: ${asked.stderr.trim() || asked.message}`,
    );
  const [pid, uid, gid, noNewPrivs, seccompMode, filters] = found.slice(1).map(Number) as number[];
  return {
    pid: pid!,
    uid: uid!,
    gid: gid!,
    confinement: {
      noNewPrivs: noNewPrivs === 1,
      seccompMode: seccompMode!,
      seccompFilters: filters! < 0 ? undefined : filters,
    },
  };
}

/** This process's own confinement. */
export function ownConfinement(): Confinement {
  const status = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\d+)$`, "m").exec(status)?.[1];
  const filters = field("Seccomp_filters");
  return {
    noNewPrivs: field("NoNewPrivs") === "1",
    seccompMode: Number(field("Seccomp") ?? 0),
    seccompFilters: filters === undefined ? undefined : Number(filters),
  };
}

/**
 * Whether a process runs under seccomp filters this process does not: so is every command the launcher
 * starts, below whatever started it (filters are inherited and cannot be removed). Where the kernel does not
 * count filters, a filtered peer of a filtered process counts as confined beyond it.
 */
export function confinedBeyond(peer: Confinement, own: Confinement = ownConfinement()): boolean {
  if (peer.seccompFilters !== undefined && own.seccompFilters !== undefined)
    return peer.seccompFilters > own.seccompFilters;
  return peer.seccompMode !== 0;
}
