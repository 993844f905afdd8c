import type { ToolResultMessage } from "@ollie/backends";
import type { AgentEvent } from "../events/agent-events.js";
import type { History } from "../history/history.js";
import type { TaskState } from "../history/task-state.js";
import type { UsageMeter } from "../history/usage-meter.js";
import type { JournalEntry } from "../persist/journal.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import type { AgentOptions } from "./agent-options.js";

/** What the recorder reads of its agent. */
export interface RecorderHost {
  readonly options: Pick<AgentOptions, "persist" | "journal">;
  readonly history: History;
  readonly usage: UsageMeter;
  readonly taskState: TaskState;
  /** The session as it would be saved now (naming its history, see `historyId`). */
  snapshot(): PersistedSession;
  /** The history's name, undefined from a replacement until the next snapshot names it again. */
  readonly historyId: string | undefined;
  emit(event: AgentEvent): void;
}

/**
 * Makes what an agent does durable, one save or journal entry at a time, in order. A round's reply is
 * recorded before its first call runs, each result as its call ends: in the journal when the agent has one
 * and it can go on from what is on disk, else by a whole save. The journal goes on from `recorded`: the
 * length of the history that a save or the journal holds (with the results of the running round recorded so
 * far); undefined when that is not known — before the first save, after the history was replaced, after a
 * journal entry failed — so that the next record is a whole save.
 */
export class SessionRecorder {
  private queue: Promise<void> | undefined;
  private recorded: number | undefined;

  constructor(private readonly host: RecorderHost) {}

  /** Saves now, after what is queued; a failure becomes an `error` event. */
  persist(): Promise<void> {
    return this.enqueue(() => this.save());
  }

  /** The round whose reply ends the history is about to run its calls: records it first. */
  round(): Promise<void> {
    return this.enqueue(async () => {
      const { history, usage } = this.host;
      const at = this.recorded;
      const id = this.host.historyId;
      const length = history.length;
      const recorded =
        at !== undefined &&
        id !== undefined &&
        (await this.journal({
          type: "round",
          history: id,
          at,
          messages: history.messages.slice(at),
          usage: { ...usage.session },
          taskState: structuredClone(this.host.taskState),
        }));
      if (!recorded) return this.save();
      if (this.host.historyId === id) this.recorded = length;
    });
  }

  /** A call of the running round ended with `result` (which the snapshot holds from now on): records it. */
  result(result: ToolResultMessage): Promise<void> {
    return this.enqueue(async () => {
      const id = this.host.historyId;
      // The round's reply ends the history until its results enter it.
      const round = this.host.history.length - 1;
      const recorded =
        this.recorded !== undefined &&
        id !== undefined &&
        (await this.journal({ type: "result", history: id, round, result }));
      if (!recorded) await this.save();
    });
  }

  /**
   * The running round's results entered the history, which was `before` long: they were recorded one by
   * one, so the journal goes on after them.
   */
  roundEnded(before: number): void {
    if (this.recorded === before) this.recorded = this.host.history.length;
  }

  /** Whether the journal holds everything so far: a round's end then needs no whole save. */
  get journaling(): boolean {
    return this.recorded !== undefined && this.host.options.journal !== undefined;
  }

  /** The history was replaced: the journal cannot go on until a save holds the new one. */
  replaced(): void {
    this.recorded = undefined;
  }

  /** Appends to the journal; false when there is none or the entry could not be written. */
  private async journal(entry: JournalEntry): Promise<boolean> {
    const journal = this.host.options.journal;
    if (!journal) return false;
    try {
      await journal(entry);
      return true;
    } catch {
      // The journal has a gap now: what follows goes to a whole save, which reports its own failure.
      this.recorded = undefined;
      return false;
    }
  }

  private async save(): Promise<void> {
    const save = this.host.options.persist;
    if (!save) return;
    const length = this.host.history.length;
    const session = this.host.snapshot();
    try {
      await save(session);
      if (session.historyId === this.host.historyId) this.recorded = length;
    } catch (error) {
      this.host.emit({
        type: "error",
        message: `the session could not be saved: ${(error as Error).message}`,
        error,
      });
    }
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const next = (this.queue ?? Promise.resolve()).then(job);
    this.queue = next;
    // The last job, once done, is forgotten: an idle agent keeps no settled promise.
    void next.then(() => {
      if (this.queue === next) this.queue = undefined;
    });
    return next;
  }
}
