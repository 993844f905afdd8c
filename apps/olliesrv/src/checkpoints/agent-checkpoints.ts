import { createHash } from "node:crypto";
import type { Message } from "@ollie/backends";
import type { ShadowRepo } from "./shadow-repo.js";
import type { Checkpoint, Recorded, Rewound } from "./types.js";

/** Where an agent's checkpoints are kept: its session's directory, on this machine or not. */
export interface CheckpointedSession {
  readonly id: string;
  readonly cwd: string;
  /** The host its tools run on, when not this one: its directory is there, out of reach. */
  readonly remote: { destination: string } | undefined;
}

/** What a checkpoint keeps of the conversation: where the turn began, so that `rewind N chat` can cut there. */
export interface TurnStart {
  /** The agent's turn (1 for its first). */
  turn: number;
  /** The messages of its history before the turn's prompt. */
  messages: number;
  /**
   * A digest of the turn's prompt as the history holds it: a compaction since rewrites the history, and
   * the cut is made only where this prompt still is.
   */
  prompt: string;
}

/** The turn that just took its prompt, the last message of `history`. */
export function turnStart(turn: number, history: readonly Message[]): TurnStart {
  return { turn, messages: history.length - 1, prompt: messageDigest(history.at(-1)) };
}

/** A digest of one message, to know it again. */
export function messageDigest(message: Message | undefined): string {
  return createHash("sha256")
    .update(JSON.stringify(message ?? null))
    .digest("hex")
    .slice(0, 16);
}

/**
 * The checkpoints of one agent: the state of its session's directory recorded before the first tool of a
 * turn that may write, listed for its `checkpoints` file, and rewound to. Its key in the shadow repository
 * is `SESSION/AGENT`; the directory's other sessions share the repository, each agent numbering its own.
 */
export class AgentCheckpoints {
  /** The turn now running, once its prompt is taken; cleared when it has its checkpoint or ends. */
  #pending: TurnStart | undefined;

  constructor(
    private readonly session: CheckpointedSession,
    readonly agent: string,
    private readonly repoOf: (directory: string) => Promise<ShadowRepo>,
  ) {}

  get owner(): string {
    return `${this.session.id}/${this.agent}`;
  }

  /** Why checkpoints are not kept for this agent now, or undefined when they are. */
  get unavailable(): string | undefined {
    const remote = this.session.remote;
    return remote
      ? `its tools run on ${remote.destination}, and checkpoints are kept for a directory on this machine only`
      : undefined;
  }

  /** A turn took its prompt: the next call of a tool that may write records the directory first. */
  turnStarted(start: TurnStart): void {
    this.#pending = start;
  }

  /** The turn ended: a call outside a turn (none) records nothing. */
  turnEnded(): void {
    this.#pending = undefined;
  }

  /**
   * Records the directory before the running turn's first tool that may write, once per turn: an
   * unchanged directory adds nothing. Resolves undefined when nothing was due.
   */
  async beforeWrite(): Promise<Recorded | undefined> {
    const start = this.#pending;
    if (!start || this.unavailable) return undefined;
    this.#pending = undefined;
    const repo = await this.repoOf(this.session.cwd);
    // Even a directory as the last checkpoint has it gets a checkpoint of this turn (its commit reused):
    // undoing this turn cuts the conversation back to this turn, not to the one that last changed a file.
    return repo.record(
      this.owner,
      { turn: start.turn, history: { messages: start.messages, prompt: start.prompt } },
      { evenIfUnchanged: true },
    );
  }

  async list(): Promise<Checkpoint[]> {
    return (await this.repo()).list(this.owner);
  }

  /** Makes the directory as checkpoint `n` has it (see ShadowRepo.rewind). */
  async rewind(n: number): Promise<Rewound> {
    return (await this.repo()).rewind(this.owner, n);
  }

  /** The directory's repository; rejects when checkpoints are not kept here. */
  repo(): Promise<ShadowRepo> {
    const why = this.unavailable;
    if (why) return Promise.reject(new Error(`no checkpoints: ${why}`));
    return this.repoOf(this.session.cwd);
  }
}
