import { SerialQueue } from "./serial-queue.js";
import type { Checkpoint } from "./types.js";

/**
 * What this process knows of one shadow repository, shared by every ShadowRepo opened on it (the agents of
 * several sessions in one directory): the queue its operations wait in, and what is cached of it.
 */
export interface RepoState {
  /** Every operation on the repository runs here, one at a time. */
  readonly queue: SerialQueue;
  /** The tree the shadow index holds, when known (undefined after a failure: ask git). */
  indexTree: string | undefined;
  /** Each owner's latest checkpoint (null: none yet), once read from its log. */
  readonly latest: Map<string, Checkpoint | null>;
}

const states = new Map<string, RepoState>();

/** The state of the shadow repository at `gitDir`, made on first use; kept for the life of the process. */
export function repoState(gitDir: string): RepoState {
  let state = states.get(gitDir);
  if (!state) {
    state = { queue: new SerialQueue(), indexTree: undefined, latest: new Map() };
    states.set(gitDir, state);
  }
  return state;
}
