import { WatchedValue } from "@ollie/virtfs";

/** Where and with what environment an agent's last call ran: what its sandbox was expanded for. */
export interface CallPlace {
  cwd: string;
  env: Record<string, string>;
  at: Date;
}

/** One agent's loaded tools and the revision that moves whenever they change. */
export class AgentTools {
  readonly loaded = new Set<string>();
  readonly revision = new WatchedValue(1);
  /** Its last call's directory and environment (none before its first call). */
  lastCall: CallPlace | undefined;

  constructor(
    initial: Iterable<string>,
    /** The agent principal whose set it is. */
    readonly uname: string,
  ) {
    for (const name of initial) this.loaded.add(name);
  }

  /** Adds tools; moves the revision if any was new. Returns the ones added. */
  load(names: Iterable<string>): string[] {
    const added = [...names].filter((n) => !this.loaded.has(n));
    for (const n of added) this.loaded.add(n);
    if (added.length > 0) this.bump();
    return added;
  }

  unload(names: Iterable<string>): string[] {
    const removed = [...names].filter((n) => this.loaded.delete(n));
    if (removed.length > 0) this.bump();
    return removed;
  }

  /** Replaces the set (an agent starting over with its profile's autoLoad). */
  reset(names: Iterable<string>): void {
    this.loaded.clear();
    for (const n of names) this.loaded.add(n);
    this.bump();
  }

  bump(): void {
    this.revision.set(this.revision.get() + 1);
  }
}

/** The loaded sets of every agent principal that has connected, by uname. */
export class AgentToolSets {
  private readonly agents = new Map<string, AgentTools>();

  constructor(private readonly initial: readonly string[]) {}

  of(uname: string): AgentTools {
    let tools = this.agents.get(uname);
    if (!tools) {
      tools = new AgentTools(this.initial, uname);
      this.agents.set(uname, tools);
    }
    return tools;
  }

  /** Every agent principal that has connected, in the order they came. */
  list(): AgentTools[] {
    return [...this.agents.values()];
  }

  get(uname: string): AgentTools | undefined {
    return this.agents.get(uname);
  }

  /** Moves every agent's revision (the catalog changed under them). */
  bumpAll(): void {
    for (const tools of this.agents.values()) tools.bump();
  }
}
