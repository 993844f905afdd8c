import type { GroupMembership } from "@ollie/ninep";

export interface TreeOptions {
  /** Owner of nodes that do not name one (default: the user running the process). */
  owner?: string;
  /** Group of nodes that do not name one (default: the owner). */
  group?: string;
  /** Whether a uname belongs to a group (default: only the group of the same name). */
  inGroup?: GroupMembership;
  /** Told of every permission refusal (an audit trail); the client gets "permission denied" either way. */
  onDenied?: (event: PermissionDenial) => void;
  /** Receives errors no client can be told of: a `close` handler failing after its client went away. */
  onError?: (err: Error) => void;
}

export interface PermissionDenial {
  uname: string;
  /** The node's path from the root, e.g. `/session/42/prompt`. */
  path: string;
  /** What was refused: `read`, `write`, `read-write`, `exec` (walk, or open for execution). */
  access: string;
}
