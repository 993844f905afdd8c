import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import type { EnsureOptions } from "../launcher/ensure-launcher.js";
import { askLauncher, closedError } from "./ask-peer-cred.js";
import type { Confinement, PeerCredentials } from "./peer-credential-types.js";

/**
 * The process, user and group at the other end of a connected Unix socket (SO_PEERCRED), which Node cannot
 * ask: the launcher is handed the socket as a descriptor and asks the kernel, holding the process while it
 * reads its confinement (a peer that exits meanwhile is an error, since its pid could be another's by
 * then). The pid is as this process's PID namespace sees it. Costs a process start; a server that asks
 * about every connection shares a PeerCredentialsReader instead.
 */
export async function peerCredentials(socket: Socket, options: EnsureOptions = {}): Promise<PeerCredentials> {
  if (socket.destroyed) throw closedError();
  const [answer] = await askLauncher([socket], options);
  if (answer instanceof Error) throw answer;
  return answer!;
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
