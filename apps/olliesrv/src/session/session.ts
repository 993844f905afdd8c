import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { BudgetedRequest, JournalEntry, SubmitOptions } from "@ollie/agent-core";
import { newSessionId } from "@ollie/agent-core/sessions";
import type { TraceCarrier } from "@ollie/telemetry";
import { type GeneratedProfile, generatedAgentConfig } from "../config/generated-profile.js";
import type { BookedProfile } from "../config/profile-book.js";
import { parseRemoteTarget, type RemoteTarget } from "../remote/remote-target.js";
import { AgentSlot } from "./agent-slot.js";
import { EventBus } from "./event-bus.js";
import type { SessionMcpServers } from "./mcp-servers.js";
import { realDirectory } from "./real-directory.js";
import { SaveRetry } from "./save-retry.js";
import { budgetReason, SessionBudget } from "./session-budget.js";
import type { SessionFile } from "./session-file.js";
import { type SessionHome, SessionStore } from "./session-store.js";
import { type BudgetedSession, type Peers, type SessionEnvironment, splitUname } from "./slot-context.js";

/** What a session is created with (what is written to session/new). */
export interface SessionSpec {
  /** The agent profile (default: default). */
  agent?: string;
  cwd?: string;
  /** `[user@]host[:dir]`: the host its tools run on (over ssh), and the directory there. */
  remote?: string;
  /** The backends.conf profile (default: the profile's, else backends.conf's default). */
  backend?: string;
  model?: string;
  name?: string;
  /** Whether a turn its parent asked for is reported to the parent as a prompt (default true). */
  callback?: boolean;
  /** The agent spawning it (set by the daemon from the proven uname, never by the spec). */
  parent?: string;
  depth?: number;
  /** Generated profiles it starts with: the one it runs, from its maker's session (set by the daemon). */
  profiles?: Record<string, GeneratedProfile>;
  /** Its own MCP servers, run by toolsrv for its agents alone (the owner's to give). */
  mcpServers?: SessionMcpServers;
  /**
   * The span that asked for it (a spawn tool's TRACEPARENT): the parent of the first turn its parent asks
   * for when that turn's trace is the spawner's, a link otherwise. Not saved.
   */
  trace?: TraceCarrier;
}

/**
 * A session: a working directory, an environment, a plan, and its agents (one, `main`, to begin with).
 * Saving writes the whole session file; between saves, each agent journals its rounds and results (see
 * SessionStore). One save or journal entry at a time, in order. A save that fails is tried again on a
 * timer (SaveRetry), so that what finished meanwhile reaches the disk as soon as there is room.
 */
export class Session {
  readonly agents = new Map<string, AgentSlot>();
  /** What happens in the session, by topic, for its observers (the `events` file). */
  readonly events = new EventBus();
  /** The name, directory and plan; each change is an event (`session.rename`, `session.cd`, `session.plan`). */
  private told = { name: "", cwd: "", plan: "" };
  env: Record<string, string>;
  readonly created: string;
  /** When something last ran in it (a turn, a hook, a compaction…), saved with it: what prune goes by. */
  #active: Date;
  /** The agent that spawned this session; it hears how each turn it prompted ended, unless not `callback`. */
  readonly parent: string | undefined;
  /** False when the parent waits for the turns itself (e.g. a fan-out tool reading `prompts/N`). */
  readonly callback: boolean;
  readonly depth: number;
  /** Principals outside the session that may write its files, as its own agents may. */
  readonly grants: Set<string>;
  /** Profiles its agents generated (its `agents/` directory), by name; saved with it. */
  readonly profiles: Map<string, GeneratedProfile>;
  /** Names created in `agents/` whose JSON is not yet written: listed, never run, never saved. */
  readonly pendingProfiles = new Set<string>();
  /** The host its tools run on; the loop, prompts, history and model calls stay here. */
  #remote: RemoteTarget | undefined;
  /** Its own MCP servers, given when it was made; saved with it. */
  readonly mcpServers: SessionMcpServers | undefined;
  /** What it has spent and may spend (the `budget` file); saved with it. */
  readonly budget: SessionBudget;
  private saving: Promise<void> = Promise.resolve();
  private killed = false;
  private readonly environment: SessionEnvironment;
  private readonly store: SessionStore;
  private readonly retry: SaveRetry;

  /** Where the first turn its maker asks of it belongs in a trace (see spawn-trace.ts); taken once, not saved. */
  #spawnTrace: { maker: string; options: SubmitOptions } | undefined;

  /** Sets where the first turn `maker` asks of this new session belongs in a trace. */
  traceFirstTurn(maker: string, options: SubmitOptions | undefined): void {
    this.#spawnTrace = options && { maker, options };
  }

  /** The trace options of a prompt from `from`: those set for its maker's first one, once. */
  takeTurnTrace(from: string): SubmitOptions | undefined {
    if (this.#spawnTrace?.maker !== from) return undefined;
    const { options } = this.#spawnTrace;
    this.#spawnTrace = undefined;
    return options;
  }

  constructor(
    readonly id: string,
    home: SessionHome,
    environment: SessionEnvironment,
    readonly peers: Peers,
    file?: SessionFile,
    spec: SessionSpec = {},
  ) {
    this.name = file?.name ?? spec.name ?? id;
    const remote = file?.remote ?? spec.remote;
    this.#remote = remote === undefined ? undefined : parseRemoteTarget(remote);
    this.cwd = file?.cwd ?? this.remote?.dir ?? spec.cwd ?? process.cwd();
    this.env = file?.env ?? {};
    this.plan = file?.plan ?? "";
    this.created = file?.created ?? new Date().toISOString();
    this.#active = new Date(file?.active ?? this.created);
    this.parent = file ? file.parent : spec.parent;
    this.depth = (file ? file.depth : spec.depth) ?? 0;
    this.callback = (file ? file.callback : spec.callback) ?? true;
    this.grants = new Set(file?.grants ?? []);
    this.profiles = new Map(Object.entries((file ? file.profiles : spec.profiles) ?? {}));
    this.mcpServers = file ? file.mcpServers : spec.mcpServers;
    this.budget = new SessionBudget(file?.budget);
    this.environment = environment;
    this.store = new SessionStore(
      home.dir,
      id,
      file?.agents.map((a) => a.name),
    );
    this.retry = new SaveRetry(`session ${id}`, () => this.save(), home.log);
    if (file) {
      for (const a of file.agents) {
        this.agents.set(a.name, new AgentSlot(this, environment, a.name, a.profile, a.backend, a.model, a));
      }
    } else {
      this.agents.set(
        "main",
        new AgentSlot(this, environment, "main", spec.agent ?? "default", spec.backend, spec.model),
      );
    }
  }

  get remote(): RemoteTarget | undefined {
    return this.#remote;
  }

  get active(): Date {
    return this.#active;
  }

  /** One of its agents began or ended something now (its state changed, which `session/idx` may show). */
  stirred(): void {
    this.#active = new Date();
    this.peers.indexTouched();
  }

  get name(): string {
    return this.told.name;
  }
  set name(name: string) {
    this.tell("name", name, "session.rename");
  }
  get cwd(): string {
    return this.told.cwd;
  }
  set cwd(cwd: string) {
    this.tell("cwd", cwd, "session.cd");
  }
  get plan(): string {
    return this.told.plan;
  }
  set plan(plan: string) {
    this.tell("plan", plan, "session.plan");
  }

  private tell(field: "name" | "cwd" | "plan", value: string, topic: string): void {
    if (this.told[field] === value) return;
    this.told[field] = value;
    this.events.publish(topic, { [field]: value });
    if (field !== "plan") this.peers.indexTouched();
  }

  /**
   * The agent profile `name` as this session's agents are made from it: one generated in the session (its
   * text after the default profile's prompt, as its system section), else the configured one.
   */
  async profile(name: string): Promise<BookedProfile> {
    const generated = this.profiles.get(name);
    if (!generated) return this.environment.making.profiles.get(name);
    const base = await this.environment.making.profiles.get("default");
    return {
      config: generatedAgentConfig(generated, base.config.systemPrompt ?? base.config.prompt),
      dir: base.dir,
      file: `session/${this.id}/agents/${name}.json`,
    };
  }

  static create(
    home: SessionHome,
    environment: SessionEnvironment,
    peers: Peers,
    spec: SessionSpec,
  ): Session {
    return new Session(newSessionId(), home, environment, peers, undefined, spec);
  }

  /**
   * Whether `uname` writes this session's files as one of its own: its agents, the agent that spawned it,
   * and whoever was granted.
   */
  admits(uname: string): boolean {
    return splitUname(uname)?.session === this.id || uname === this.parent || this.grants.has(uname);
  }

  /** The next unchecked `- [ ]` item of the plan. */
  planStep(): string | undefined {
    return /^\s*[-*]\s+\[ \]\s+(.+)$/m.exec(this.plan)?.[1]?.trim();
  }

  /** Moves the session to another directory; its agents' tools run there from their next call. */
  async changeDirectory(dir: string): Promise<void> {
    await this.move(this.#remote, resolve(this.cwd, dir));
  }

  /**
   * Moves the session's tools to another host (`[user@]host[:dir]`, in `dir` there, else the same directory),
   * or back to this machine (undefined) in `dir`; from their next call on.
   */
  async changeHost(remote: RemoteTarget | undefined, dir?: string): Promise<void> {
    await this.move(remote, resolve(this.cwd, remote?.dir ?? dir ?? this.cwd));
  }

  private async move(remote: RemoteTarget | undefined, wanted: string): Promise<void> {
    // A remote session's directory is on its host: its tools find out whether it is there.
    const target = remote ? wanted : await realDirectory(wanted);
    for (const slot of this.agents.values()) {
      if (slot.agent && slot.agent.state !== "idle")
        throw new Error("cannot move the session while a turn runs");
    }
    const host = remote && { destination: remote.destination };
    if (host?.destination !== this.#remote?.destination) {
      this.#remote = host;
      this.events.publish("session.remote", { remote: host?.destination ?? "" });
    }
    this.cwd = target;
    for (const slot of this.agents.values()) await slot.moveTo(target);
    await this.save();
  }

  /** This session and every session it was made from, nearest first. */
  lineage(): BudgetedSession[] {
    const chain: BudgetedSession[] = [this];
    for (let up = this.peers.sessionOf(this.parent ?? ""); up && !chain.includes(up); ) {
      chain.push(up);
      up = up.parent === undefined ? undefined : this.peers.sessionOf(up.parent);
    }
    return chain;
  }

  charge(usd: number, tokens: number, by: string): void {
    for (const s of this.lineage()) {
      const marks = s.budget.charge(usd, tokens);
      // Its own agents save this one; an ancestor is saved now, its charge as durable as the child's.
      if (s !== this) s.save().catch(() => {});
      for (const { fraction, message } of marks) {
        s.events.publish("session.budget", { fraction, message });
        // The agent that charged it asks at its next request; every other turn under it stops now.
        if (fraction === 1) this.peers.stopSpending(s.id, message, by);
      }
    }
  }

  spendingRefusal(request: BudgetedRequest): string | undefined {
    for (const s of this.lineage()) {
      const why = s.budget.refusal(request);
      if (why !== undefined) return budgetReason(s.id, this.id, why);
    }
    return undefined;
  }

  toFile(): SessionFile {
    return {
      version: 1,
      id: this.id,
      name: this.name,
      cwd: this.cwd,
      env: this.env,
      plan: this.plan,
      created: this.created,
      active: this.#active.toISOString(),
      paused: [...this.agents.values()].every((a) => a.agent === undefined),
      ...(this.parent !== undefined && { parent: this.parent }),
      ...(this.depth > 0 && { depth: this.depth }),
      ...(!this.callback && { callback: false as const }),
      ...(this.grants.size > 0 && { grants: [...this.grants] }),
      ...(this.profiles.size > 0 && { profiles: Object.fromEntries(this.profiles) }),
      ...(this.remote && { remote: this.remote.destination }),
      ...(this.mcpServers && { mcpServers: this.mcpServers }),
      budget: this.budget.toSaved(),
      agents: [...this.agents.values()].map((a) => a.toSaved()),
    };
  }

  /**
   * Saves the session file (atomically; one save or journal entry at a time; a killed session is not saved
   * again). A failed save (a full disk, say) rejects this call; once the session is on the disk, it is also
   * tried again on a timer until it works (see SaveRetry) — a session never saved is not: its maker is told.
   */
  save(): Promise<void> {
    const attempt = this.saving.then(async () => {
      if (!this.killed) await this.store.write(this.toFile());
    });
    this.saving = attempt.then(
      () => this.retry.succeeded(),
      (error: unknown) => {
        if (this.store.written) this.retry.failed(error);
      },
    );
    return attempt;
  }

  /**
   * Appends to agent `agent`'s journal what it records between saves (agent-core's `journal`), in the same
   * queue as the saves; on the disk when this resolves.
   */
  journal(agent: string, entry: JournalEntry): Promise<void> {
    const attempt = this.saving.then(async () => {
      if (!this.killed) await this.store.append(agent, entry);
    });
    this.saving = attempt.catch(() => undefined);
    return attempt;
  }

  /** Stops every agent's turn and closes their connections, saving first. */
  async close(): Promise<void> {
    for (const slot of this.agents.values()) slot.agent?.interrupt("the daemon is stopping");
    await Promise.all([...this.agents.values()].map((s) => s.close()));
    // The last save is the daemon's to report (see Sessions.close), not the timer's to try again.
    this.retry.stop();
    await this.save();
  }

  /** Ends the session: its agents are stopped and closed, and its file removed. */
  async kill(): Promise<void> {
    for (const slot of this.agents.values()) {
      slot.end(new Error(`session ${this.id} was killed`));
      slot.agent?.interrupt("the session was killed");
    }
    // What its agents left running in the background ends with it.
    await Promise.all([...this.agents.values()].map((s) => s.killProcesses()));
    await Promise.all([...this.agents.values()].map((s) => s.close()));
    // Observers see the turns end, then this, then the end of the file.
    this.events.end("session.kill");
    this.killed = true;
    this.retry.stop();
    await this.saving;
    await this.store.remove(this.agents.keys());
    for (const slot of this.agents.values()) await rm(slot.tmpDir, { recursive: true, force: true });
  }
}
