import { join } from "node:path";
import type { Agent, AgentEvent, PersistedSession, Submission, SubmitOptions } from "@ollie/agent-core";
import type { BackendPool } from "@ollie/backends";
import type { ToolsrvConn } from "@ollie/toolsrv/client";
import type { BookedProfile } from "../config/profile-book.js";
import type { Skill } from "../config/skills.js";
import { AgentChoices } from "./agent-choices.js";
import { type MadeAgent, makeAgent } from "./agent-maker.js";
import { AgentObserver, type ShownUsage } from "./agent-observer.js";
import { PendingReload, unreachableNote } from "./backend-reload.js";
import { reportTurn, stampSender } from "./callback.js";
import { hopsTo } from "./hop-limit.js";
import { IdleTimer } from "./idle-timer.js";
import { CountedLive } from "./live-agents.js";
import { LoadedSkills } from "./loaded-skills.js";
import { PromptTickets } from "./prompt-tickets.js";
import type { SavedAgent } from "./session-file.js";
import { SKILL_TOOLS } from "./skill-tools.js";
import type { SessionEnvironment, SlotSession } from "./slot-context.js";

/**
 * One agent of a session: its profile and choices, its chat, its state — and, once it is needed, the live
 * Agent with its backend and its toolsrv connection. A restored session starts paused: nothing connects
 * until the agent is prompted (or asked about its tools or models). A live agent idle for a while is
 * parked: paused again, holding no connection, until its next use.
 */
export class AgentSlot {
  /**
   * What its files show of it — chat, activity, processes, replies, state, turns, last outcome — kept up to
   * date from its events; it outlives the live agent.
   */
  readonly shown: AgentObserver;
  /** The live agent, made (or resumed) on first use, and what its making left: see makeAgent. */
  readonly #live: CountedLive<MadeAgent>;
  #lastPrompt: string;
  readonly #skills: LoadedSkills;
  /** Prompts being submitted that wait for the agent to be made (see `submit`). */
  #waiting = 0;
  /** Its agent profile, and the backend and model it was switched to. */
  readonly choices: AgentChoices;
  /** The numbers given to the prompts this agent takes, and how their turns ended (`prompts/N`). */
  readonly tickets: PromptTickets;
  private activating: Promise<Agent> | undefined;
  /** A changed backends.conf the live agent has yet to take. */
  private readonly reload: PendingReload;
  private saved: PersistedSession | undefined;
  /** Parks the live agent once it has been idle for the environment's `idleCloseMs`. */
  readonly #idle: IdleTimer;
  /** The tools the agent had loaded at toolsrv when it was last parked: the next agent loads them again. */
  #loaded: string[] | undefined;
  /** The parked agent's close, which the next agent waits for. */
  #parking: Promise<void> | undefined;

  constructor(
    private readonly session: SlotSession,
    private readonly env: SessionEnvironment,
    readonly name: string,
    profile: string,
    backend?: string,
    model?: string,
    saved?: SavedAgent,
  ) {
    this.choices = new AgentChoices(env.making, profile, backend, model, saved?.maxSteps);
    this.reload = new PendingReload(
      this.choices,
      (line) => this.shown.chat.note(line),
      () => env.making.backends,
      (step) => {
        if (!this.activating) return false;
        this.activating = this.activating.then(step);
        return true;
      },
    );
    this.saved = saved?.session;
    this.#lastPrompt = saved?.lastPrompt ?? "";
    this.#live = new CountedLive(env.making.liveAgents);
    this.#skills = new LoadedSkills(saved?.skills ?? [], env.making.skills, () => this.#live.get());
    this.tickets = new PromptTickets(saved?.prompts ?? 0);
    this.shown = new AgentObserver(
      session,
      name,
      () => this.toolsrv,
      {
        idle: () => {
          this.#idle.start();
          // Nothing runs now (a turn ended, or a compaction from ctl): what changed meanwhile is taken.
          this.reload.turnEnded();
          this.#skills.idle();
        },
        busy: () => this.#idle.stop(),
        unreachable: (error) =>
          unreachableNote(error, this.env.making.backends, this.env.making.backendsConf),
      },
      saved,
    );
    this.#idle = new IdleTimer(env.making.idleCloseMs, () => void this.park());
  }
  /** The live agent, if it is live (made, and not parked or closed since). */
  get agent(): Agent | undefined {
    return this.#live.get()?.agent;
  }

  /** The last prompt it was given. */
  get lastPrompt(): string {
    return this.#lastPrompt;
  }

  /** Its agent profile as it is made from now (a profile its session generated, else the configured one). */
  profileInUse(): Promise<BookedProfile> {
    return this.session.profile(this.choices.profile);
  }

  /** The skills loaded into its system prompt. */
  get skills(): readonly string[] {
    return this.#skills.names;
  }

  /** Switches the model, checked against its backend's list first; a live agent takes it at once. Saved. */
  async useModel(model: string): Promise<void> {
    await this.choices.useModel(model, this.agent);
    await this.session.save();
  }

  /** Switches to another backends.conf profile (and its model); a live agent takes it at once. Saved. */
  async useBackend(name: string): Promise<void> {
    await this.choices.useBackend(name, this.agent);
    await this.session.save();
  }

  /** Loads skills into, or unloads them from, the system prompt (a live agent takes it at once). Saved. */
  async setSkills(skills: readonly string[]): Promise<void> {
    await this.#skills.set(skills);
    await this.session.save();
  }

  /** The agent's principal: how toolsrv and the namespace know it. */
  get uname(): string {
    return `${this.session.id}.${this.name}`;
  }

  /** The agent's own TMPDIR, the only temporary directory its tools may write. */
  get tmpDir(): string {
    return join(this.env.making.tmpRoot, this.uname);
  }

  /** The live agent, made (or restored) on first use. */
  activate(): Promise<Agent> {
    this.activating ??= this.make().catch((error: unknown) => {
      this.activating = undefined;
      throw error;
    });
    return this.activating;
  }

  /**
   * Submits a prompt, connecting the agent first if it is paused; resolves with its ticket (see
   * PromptTickets) as soon as it is queued and saved, not when the turn ends.
   */
  async submit(prompt: string, from: string = this.env.policy.owner, trace?: SubmitOptions): Promise<number> {
    const hops = this.hopsFrom(from);
    // The prompt waits for the agent to be made: the slot is busy from now, not idle in between.
    this.#waiting++;
    let submission: Submission;
    try {
      const agent = await this.activate();
      this.#lastPrompt = prompt;
      submission = agent.submit(
        stampSender(prompt, from, this.env.policy.owner),
        this.session.takeTurnTrace(from) ?? trace,
      );
    } finally {
      this.#waiting--;
      // The agent could not be made, or took no prompt: idle again.
      if (this.#waiting === 0 && this.shown.state.get() !== "idle" && !this.agent?.busy)
        this.onEvent({ type: "state", state: "idle" });
    }
    const ticket = this.tickets.issue(submission);
    this.shown.queued(hops, submission.position, { ticket, from, text: prompt });
    // The writer learns the prompt was taken only once it is on disk: a crash now cannot lose it.
    await this.session.save();
    // A turn its session's parent asked for is reported to it when it ends, unless it waits for it itself.
    const parent = this.session.parent;
    if (parent !== undefined && from === parent && this.session.callback)
      void submission.then((outcome) => {
        const report = { parent, from: this.uname, outcome, turn: submission.turnSpan };
        return reportTurn(this.session.peers, report, this.shown.lastArtifacts, (line) =>
          this.shown.chat.note(line),
        );
      });
    return ticket;
  }

  /** The hops a prompt or injection from `from` is at, refused past the limit (see hopsTo). */
  hopsFrom(from: string): number {
    return hopsTo(this.uname, from, this.session.peers, this.env.policy);
  }

  /** For a remote session: its host and whether olliesrv is connected to it (`connected`, `connecting`, …). */
  get remote(): { destination: string; state: string; lost?: string } | undefined {
    const remote = this.session.remote;
    if (!remote) return undefined;
    return { destination: remote.destination, ...this.env.making.remotes.state(remote.destination) };
  }

  /** The toolsrv connection of the live agent, if it has one. */
  get toolsrv(): ToolsrvConn | undefined {
    return this.#live.get()?.toolsrv();
  }

  /**
   * Ends the agent's tool processes still running at toolsrv — those it left in the background too, which
   * would otherwise run out their lifetime — when its session ends. Never throws: a process that ends
   * meanwhile, or a connection that is gone, leaves nothing to do.
   */
  async killProcesses(): Promise<void> {
    const conn = this.toolsrv;
    if (!conn) return;
    const running = (await conn.processes().catch(() => [])).filter((p) => p.status === "running");
    await Promise.all(running.map((p) => conn.kill(p.id).catch(() => undefined)));
  }

  /** Closes the live agent (its toolsrv connection); the slot keeps what it needs to come back. */
  async close(): Promise<void> {
    this.#idle.stop();
    await this.#parking;
    const agent = this.agent;
    this.shown.procs.stop();
    if (!agent) return;
    await agent.close();
    this.saved = agent.snapshot();
    this.shown.waiting.restored(this.saved.queued ?? []);
    this.#live.set(undefined);
    this.activating = undefined;
  }

  /**
   * Ends what readers block on, for good: `statewait`, `turnwait`, `chat`, `tail` and `fifo.out` readers,
   * now and later, get `reason` (e.g. "session killed") instead of waiting for what will never come.
   */
  end(reason: Error): void {
    this.shown.end(reason);
    this.tickets.end(reason);
  }

  /** Starts over with `profile`: the live agent is closed, the history dropped; the next use makes a new one. */
  async reset(profile: string): Promise<void> {
    await this.close();
    this.choices.useProfile(profile);
    this.saved = undefined;
    this.shown.waiting.restored([]);
    this.#loaded = undefined;
    this.shown.keepLastTurn(undefined);
    this.shown.chat.note(`· now running profile ${profile}, with a fresh history`);
  }

  /**
   * Starts a slot that was never used from another agent's checkpoint (a fork): it comes up paused with that
   * history and task state, as a restored agent does, and with its skills.
   */
  adopt(from: { session?: PersistedSession | undefined; skills: readonly string[] }): void {
    if (this.agent || this.saved) throw new Error(`${this.uname} has a history already`);
    // There is no live agent to render a prompt for: the names are all that change.
    void this.#skills.set(from.skills);
    if (!from.session) return;
    this.saved = from.session;
    this.shown.chat.replay(from.session.messages);
  }

  /** Moves a paused or live agent to another directory: its tool connection is remade there. */
  async moveTo(cwd: string): Promise<void> {
    await this.close();
    if (this.saved) this.saved = { ...this.saved, cwd };
  }

  /**
   * The skills directory changed (`before`: the skills there were). A loaded skill that is gone is unloaded,
   * one that changed is rendered anew, each said in the chat. A live agent's system prompt takes them at its
   * next turn: now when nothing runs, else once it is idle again (a turn keeps one system prompt). Never
   * throws: a save that fails is the next save's to make.
   */
  async skillsChanged(before: ReadonlyMap<string, Skill>): Promise<void> {
    const { notes, unloaded } = await this.#skills.changed(before);
    for (const note of notes) this.shown.chat.note(note);
    if (unloaded) await this.session.save().catch(() => undefined);
  }

  /** The slot as it is saved (with no history if it was never prompted). */
  toSaved(): SavedAgent {
    const session = this.agent?.snapshot() ?? this.saved;
    return {
      name: this.name,
      profile: this.choices.profile,
      ...this.choices.toSaved(),
      ...(this.skills.length > 0 && { skills: [...this.skills] }),
      ...(this.lastPrompt && { lastPrompt: this.lastPrompt }),
      ...(this.tickets.issued > 0 && { prompts: this.tickets.issued }),
      ...this.shown.toSaved(),
      ...(session && { session }),
    };
  }

  /** The longest prompt the daemon takes. */
  get maxPromptBytes(): number {
    return this.env.policy.limits.maxPromptBytes;
  }

  /** Tokens and cost, as the `usage` and `cost` files show them (see AgentObserver.usage). */
  usage(): ShownUsage {
    return this.shown.usage(this.agent?.usage, this.saved);
  }

  /**
   * Parks an agent idle for `idleCloseMs` — nothing running (`Agent.busy`: no turn, hook, compaction,
   * prompt command or waiting prompt) since its state last became `idle`: closes it — its toolsrv
   * connection, its backend, its runtime —
   * and keeps the snapshot taken now, so that the slot holds what a restored, paused one does. Its next use
   * makes it again from that snapshot, with the tools it had loaded; its chat, state and turn count never
   * left the slot. An agent with a tool process left running in the background stays, so that `proc/` keeps
   * showing it, and is looked at again after the same while.
   */
  private async park(): Promise<void> {
    const agent = this.agent;
    const conn = this.toolsrv;
    if (!agent || this.#parking) return;
    // Parking never cuts anything short — a turn, a hook, a compaction, prompt commands, a waiting prompt —
    // and the state may not say so yet (a turn between two steps): look again after the same while.
    if (agent.busy) return this.#idle.start();
    // With its connection lost (toolsrv died, or the way to it), nothing of it runs there any more.
    const processes = conn ? await conn.processes().catch(() => []) : [];
    if (processes.some((p) => p.status === "running")) return this.#idle.start();
    // Something may have started, or the agent closed, while toolsrv answered.
    if (this.agent !== agent) return;
    if (agent.busy) return this.#idle.start();
    this.saved = agent.snapshot();
    this.#loaded = [...agent.runtime.toolInfo.keys()].filter((n) => !SKILL_TOOLS.some((t) => t.name === n));
    this.shown.keepLastTurn(agent.usage);
    // From here a use makes a new agent, which waits for this one to be closed.
    this.#live.set(undefined);
    this.activating = undefined;
    this.shown.procs.stop();
    this.#parking = agent.close().finally(() => {
      this.#parking = undefined;
    });
    await this.#parking;
  }

  private async make(): Promise<Agent> {
    await this.#parking;
    const booked = await this.profileInUse();
    this.reload.madeFrom(booked.config);
    const live = await makeAgent(this.session, this.env.making, {
      name: this.name,
      uname: this.uname,
      tmpDir: this.tmpDir,
      profile: { name: this.choices.profile, booked },
      ...this.choices.switched(),
      loaded: this.#loaded,
      saved: this.saved,
      skills: {
        skills: () => this.env.making.skills(),
        loaded: () => this.skills,
        setLoaded: (names) => this.setSkills(names),
      },
      withSkills: (prompt) => this.#skills.withSkills(prompt),
      turns: () => this.shown.turns.get(),
      showing: (state) => this.makingWith(state),
      onEvent: (e) => this.onEvent(e),
    });
    this.#live.set(live);
    this.shown.waiting.held(live.agent.queued.length);
    this.#idle.start();
    return live.agent;
  }

  /**
   * What runs while the agent is made, before there is an agent to say so: its prompt commands. A live
   * agent says itself when it runs them again (after a compaction).
   */
  private makingWith(state: "prompt commands" | "idle"): void {
    if (this.agent || this.shown.state.get() === state || (state === "idle" && this.#waiting > 0)) return;
    this.shown.show(state);
  }

  private onEvent(e: AgentEvent): void {
    // A prompt waits for the agent being made for it: not idle, whatever the agent says meanwhile (its
    // agentSpawn hook ended); the turn's own state comes next.
    if (e.type === "state" && e.state === "idle" && this.#waiting > 0) return;
    this.shown.event(e);
    // A waiting prompt taken into a turn: that turn's first event follows at once.
    if (this.agent && this.shown.waiting.size > 0) this.shown.waiting.held(this.agent.queued.length);
  }

  /**
   * backends.conf changed (`old` is what it was). A paused agent reads the new one when it comes back; a live
   * one takes it now if it is idle, else when its turn ends — the running turn keeps what it started with.
   */
  reconfigure(old: BackendPool): void {
    this.reload.changed(old, this.agent);
  }
}
