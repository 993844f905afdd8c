/** What a checkpoint stores at most: the files above a cap are noted, not stored. */
export interface CheckpointLimits {
  /** A file larger than this (bytes) is never stored. */
  maxFileBytes: number;
  /** The most bytes of new or changed files one checkpoint stores; the files beyond wait for the next. */
  maxCheckpointBytes: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: Readonly<CheckpointLimits> = {
  maxFileBytes: 1024 * 1024,
  maxCheckpointBytes: 50 * 1024 * 1024,
};

/**
 * `turn`: the state before a turn's tools wrote; `before rewind`: the state a rewind replaced, so that
 * rewinding to it undoes the rewind.
 */
export type CheckpointKind = "turn" | "before rewind";

/** How one path differs between two checkpoints. */
export interface ChangedFile {
  /** Relative to the directory, `/`-separated (bytes that are not UTF-8 shown as U+FFFD). */
  path: string;
  change: "added" | "modified" | "deleted" | "type changed";
  /** Lines added and deleted; null for a binary file (git's `-`). */
  added: number | null;
  deleted: number | null;
}

/**
 * Why a path present in the directory is not in a checkpoint:
 * - `file-cap`: larger than `maxFileBytes`;
 * - `checkpoint-cap`: its bytes would have taken the checkpoint past `maxCheckpointBytes` (the next
 *   checkpoint stores it if it fits there);
 * - `nested-repository`: a directory holding a git repository of its own (`path` ends with `/`);
 * - `special-file`: neither a regular file nor a symbolic link (a FIFO, a socket, a device);
 * - `unstorable-name`: a name git refuses to store (a `.git` component in another case);
 * - `unreadable`: the daemon may not read it.
 * A rewind leaves noted paths as they are.
 */
export interface NotedFile {
  path: string;
  reason:
    | "file-cap"
    | "checkpoint-cap"
    | "nested-repository"
    | "special-file"
    | "unstorable-name"
    | "unreadable";
  /** Its size in bytes, where the reason is a cap. */
  size?: number;
}

/** Where a turn began in its owner's conversation: the messages before its prompt, and the prompt's digest. */
export interface CheckpointHistory {
  messages: number;
  prompt: string;
}

/** A recorded state of the directory, numbered 1, 2, 3… per owner. */
export interface Checkpoint {
  n: number;
  owner: string;
  kind: CheckpointKind;
  /** The commit in the shadow repository (its id) and its tree. */
  commit: string;
  tree: string;
  /** When it was recorded (ISO 8601). */
  time: string;
  /** What the caller said about it (`record`'s `info`). */
  turn?: number;
  label?: string;
  history?: CheckpointHistory;
  /** For `before rewind`: the checkpoint the directory was rewound to. */
  rewindTo?: number;
  /** What changed since the owner's previous checkpoint; empty for its first. */
  files: ChangedFile[];
  /** What the directory held that this checkpoint does not. */
  noted: NotedFile[];
}

/** What `record` did: a new checkpoint, or none, the directory being as the owner's last one has it. */
export type Recorded =
  | { created: true; checkpoint: Checkpoint }
  | { created: false; sameAs: Checkpoint; noted: NotedFile[] };

/** What `rewind` did. */
export interface Rewound {
  /** The checkpoint the directory now matches (but for `untouched`). */
  to: Checkpoint;
  /** The state it replaced, recorded first; undefined when the directory already matched `to`. */
  before: Checkpoint | undefined;
  /** What the rewind changed in the directory. */
  files: ChangedFile[];
  /**
   * Paths of `to` left as they are: what the directory now holds there is not in any checkpoint (ignored,
   * noted, or in a nested repository), or `to` noted them.
   */
  untouched: string[];
}
