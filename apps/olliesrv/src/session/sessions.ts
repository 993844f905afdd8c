import type { AgentEnvironment } from "./agent-slot.js";
import { Session, type SessionSpec } from "./session.js";
import { readSessionFiles } from "./session-file.js";

/** Every session of the daemon. */
export class Sessions {
  private readonly byId = new Map<string, Session>();
  private changes = 0;

  constructor(
    private readonly dir: string,
    private readonly corruptDir: string,
    readonly environment: AgentEnvironment,
    private readonly log: (line: string) => void,
  ) {}

  list(): Session[] {
    return [...this.byId.values()];
  }

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  /** Counts creations and removals (the idx file's qid version). */
  get version(): number {
    return this.changes;
  }

  async create(spec: SessionSpec): Promise<Session> {
    const session = Session.create(this.dir, this.environment, spec);
    this.byId.set(session.id, session);
    this.changes++;
    await session.save();
    return session;
  }

  /** Reads the saved sessions back, paused: nothing connects until an agent is used. */
  async restore(): Promise<number> {
    const files = await readSessionFiles(this.dir, this.corruptDir, this.log);
    for (const file of files) this.byId.set(file.id, new Session(file.id, this.dir, this.environment, file));
    this.changes++;
    return files.length;
  }

  async kill(id: string): Promise<void> {
    const session = this.byId.get(id);
    if (!session) throw new Error(`no session ${id}`);
    this.byId.delete(id);
    this.changes++;
    await session.kill();
  }

  /** Stops every turn, saves every session, closes every connection. */
  async close(): Promise<void> {
    await Promise.all(this.list().map((s) => s.close()));
  }
}
