/** A server's unique identification of a file: `path` is stable for the file's life, `version` changes with it. */
export interface Qid {
  /** QT bits: directory, append-only, exclusive, auth, temporary. */
  type: number;
  version: number;
  path: bigint;
}
