import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { JournalEntry } from "@ollie/agent-core";
import { appendJournal } from "@ollie/agent-core/sessions";
import type { Logger } from "@ollie/log";
import { type SessionFile, writeSessionFile } from "./session-file.js";

/** Where the daemon keeps its sessions, and where it says what happened to them. */
export interface SessionHome {
  dir: string;
  log: Logger;
}

/** The journal of agent `agent` of session `id`, beside the session's file. */
export function journalFile(dir: string, id: string, agent: string): string {
  return join(dir, `${id}.${agent}.journal`);
}

/** A journal entry refused because one before it could not be written: the journal has a gap. */
export class JournalGapError extends Error {
  override readonly name = "JournalGapError";
  constructor(readonly file: string) {
    super(`${file}: an earlier entry could not be written; the session is saved whole until a save works`);
  }
}

/**
 * A session on the disk: its file `{id}.json`, written whole and atomically (the directory flushed too),
 * and beside it each agent's journal `{id}.{agent}.journal` — what the agent recorded since the file was
 * last written: a round before its calls run, each result as its call ends (see agent-core's
 * AgentOptions.journal), one fdatasync'd line each. A write that works holds everything journaled before
 * it, so the journals are removed then. After an entry that could not be written, no entry is appended
 * (JournalGapError: the agent saves whole instead) until a write works and the journals are gone. Callers
 * do one thing at a time (the Session's queue).
 */
export class SessionStore {
  /** Agents that may have a journal on the disk. */
  private readonly journaled: Set<string>;
  private gap = false;
  /** Whether the session is on the disk (restored, or written once). */
  written: boolean;

  constructor(
    private readonly dir: string,
    private readonly id: string,
    restoredAgents?: readonly string[],
  ) {
    this.journaled = new Set(restoredAgents);
    this.written = restoredAgents !== undefined;
  }

  /** Writes the whole session, then removes the journals it now holds. */
  async write(file: SessionFile): Promise<void> {
    await writeSessionFile(this.dir, file);
    this.written = true;
    const removed = await Promise.allSettled(
      [...this.journaled].map((agent) => rm(journalFile(this.dir, this.id, agent), { force: true })),
    );
    // A journal that is still there may end in a half-written line: nothing goes after it.
    if (removed.some((r) => r.status === "rejected")) return;
    this.journaled.clear();
    this.gap = false;
  }

  /** Appends an entry to `agent`'s journal, on the disk when this resolves. */
  async append(agent: string, entry: JournalEntry): Promise<void> {
    const file = journalFile(this.dir, this.id, agent);
    if (this.gap) throw new JournalGapError(file);
    this.journaled.add(agent);
    try {
      await appendJournal(file, entry);
    } catch (error) {
      this.gap = true;
      throw error;
    }
  }

  /** Removes the session's file and journals. */
  async remove(agents: Iterable<string>): Promise<void> {
    await rm(join(this.dir, `${this.id}.json`), { force: true });
    for (const agent of new Set([...agents, ...this.journaled]))
      await rm(journalFile(this.dir, this.id, agent), { force: true });
  }
}
