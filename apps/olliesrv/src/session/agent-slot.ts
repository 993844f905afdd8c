import { join, resolve } from "node:path";
import {
  Agent,
  type AgentEvent,
  type AgentOptions,
  type PersistedSession,
  type Submission,
  type UsageTotals,
} from "@ollie/agent-core";
import { profileLoader } from "@ollie/agent-core/config";
import type { BackendPool } from "@ollie/backends";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { LogStream, WatchedValue } from "@ollie/virtfs";
import { checkModel } from "../config/backends.js";
import type { BookedProfile } from "../config/profile-book.js";
import type { Skill } from "../config/skills.js";
import { RedialingTools } from "../toolsrv/redialing-tools.js";
import { Activity } from "./activity.js";
import { PendingReload, unreachableNote } from "./backend-reload.js";
import { artifactOf, callbackText, stampSender } from "./callback.js";
import { ChatLog } from "./chat-log.js";
import { publishAgentEvent } from "./event-bus.js";
import { IdleTimer } from "./idle-timer.js";
import { privateDir } from "./private-dir.js";
import { outcomeText, PromptTickets } from "./prompt-tickets.js";
import { sandboxedPrompts } from "./sandboxed-prompts.js";
import type { SavedAgent } from "./session-file.js";
import { showingCommands } from "./showing-commands.js";
import { skillChanges } from "./skill-changes.js";
import { SKILL_TOOLS, WithSkillTools } from "./skill-tools.js";
import type { AgentEnvironment, SlotSession } from "./slot-context.js";
import { ToolProcs } from "./tool-procs.js";

/**
 * One agent of a session: its profile and choices, its chat, its state — and, once it is needed, the live
 * Agent with its backend and its toolsrv connection. A restored session starts paused: nothing connects
 * until the agent is prompted (or asked about its tools or models). A live agent idle for a while is
 * parked: paused again, holding no connection, until its next use.
 */
export class AgentSlot {
  readonly chat = new ChatLog();
  /** What the agent is doing now: its `activity` file. */
  readonly activity = new Activity();
  /** Its tool processes at toolsrv, as last asked for: the `proc/` directory. */
  readonly procs = new ToolProcs(() => this.toolsrv);
  /** The model's text alone, a newline after each turn: what fifo.out streams to programs. */
  readonly replies = new LogStream({ retain: 1024 * 1024 });
  readonly state = new WatchedValue<string>("idle");
  /** Turns finished so far, restarts included; a read of `turnwait` returns when it moves. */
  readonly turns: WatchedValue<number>;
  /** How the last turn ended: `done`, `interrupted`, `maxsteps`, `blocked`, `handled` or `error: …`. */
  lastOutcome: string;
  /** Agent-to-agent hops behind the turn running now (or last): 0 when a person prompted it. */
  turnHops = 0;
  /** The hops of prompts submitted and not yet begun, in order. */
  private readonly queuedHops: number[] = [];
  agent: Agent | undefined;
  /** The live agent's toolsrv connection as it is now (dialled again after a loss). */
  #toolsrv: (() => ToolsrvConn | undefined) | undefined;
  lastPrompt: string;
  #skills: string[];
  /** Prompts being submitted that wait for the agent to be made (see `submit`). */
  #waiting = 0;
  /** The skills directory changed while something ran: the system prompt is rendered again once idle. */
  #skillsStale = false;
  #profile: string;
  #backend: string | undefined;
  #model: string | undefined;
  /** The numbers given to the prompts this agent takes, and how their turns ended (`prompts/N`). */
  readonly tickets: PromptTickets;
  private activating: Promise<Agent> | undefined;
  /** The profile's prompt, before skills. */
  private basePrompt = "";
  /** A changed backends.conf the live agent has yet to take. */
  private readonly reload = new PendingReload(
    this,
    () => this.env.backends,
    (step) => {
      if (!this.activating) return false;
      this.activating = this.activating.then(step);
      return true;
    },
  );
  private saved: PersistedSession | undefined;
  /** Parks the live agent once it has been idle for the environment's `idleCloseMs`. */
  readonly #idle: IdleTimer;
  /** The tools the agent had loaded at toolsrv when it was last parked: the next agent loads them again. */
  #loaded: string[] | undefined;
  /** The last turn's usage and cost as the parked agent had them, shown until the next turn starts. */
  #lastTurn: { usage: UsageTotals; costUsd: number } | undefined;
  /** The parked agent's close, which the next agent waits for. */
  #parking: Promise<void> | undefined;
  /** Files the running turn's tools wrote, and those of the last finished turn. */
  private artifacts = new Set<string>();
  private lastArtifacts: string[] = [];

  constructor(
    private readonly session: SlotSession,
    private readonly env: AgentEnvironment,
    readonly name: string,
    profile: string,
    backend?: string,
    model?: string,
    saved?: SavedAgent,
  ) {
    this.#profile = profile;
    this.#backend = backend;
    this.#model = model;
    this.saved = saved?.session;
    this.lastPrompt = saved?.lastPrompt ?? "";
    this.#skills = saved?.skills ?? [];
    this.tickets = new PromptTickets(saved?.prompts ?? 0);
    this.turns = new WatchedValue(saved?.turns?.count ?? 0);
    this.lastOutcome = saved?.turns?.last ?? "";
    if (this.saved) this.chat.replay(this.saved.messages);
    this.chat.onNote = (text) => this.session.events.publish(`agent.${name}.note`, { text });
    this.#idle = new IdleTimer(env.idleCloseMs, () => void this.park());
  }

  /** The agent profile it runs. */
  get profile(): string {
    return this.#profile;
  }

  /** Its agent profile as it is made from now (a profile its session generated, else the configured one). */
  profileInUse(): Promise<BookedProfile> {
    return this.session.profile(this.profile);
  }

  /** The backends.conf profile it was switched to, if it was (else its agent profile's). */
  get backend(): string | undefined {
    return this.#backend;
  }

  /** The model it was switched to, if it was (else its backend's). */
  get model(): string | undefined {
    return this.#model;
  }

  /** The skills loaded into its system prompt. */
  get skills(): readonly string[] {
    return this.#skills;
  }

  /** Switches the model, checked against its backend's list first; a live agent takes it at once. Saved. */
  async useModel(model: string): Promise<void> {
    await checkModel(this.env.backends, this.#backend, model, this.env.models);
    this.#model = model;
    this.agent?.runtime.backend.setModel(model);
    await this.session.save();
  }

  /** Switches to another backends.conf profile (and its model); a live agent takes it at once. Saved. */
  async useBackend(name: string): Promise<void> {
    const backend = await this.env.backends.fresh(name);
    this.#backend = name;
    this.#model = undefined;
    await this.agent?.updateRuntime({ backend });
    await this.session.save();
  }

  /** The model it was switched to no longer applies (its backend changed under it). */
  forgetModel(): void {
    this.#model = undefined;
  }

  /** Loads skills into, or unloads them from, the system prompt (a live agent takes it at once). Saved. */
  async setSkills(skills: readonly string[]): Promise<void> {
    this.#skills = [...new Set(skills)];
    await this.refreshPrompt();
    await this.session.save();
  }

  /** The agent's principal: how toolsrv and the namespace know it. */
  get uname(): string {
    return `${this.session.id}.${this.name}`;
  }

  /** The agent's own TMPDIR, the only temporary directory its tools may write. */
  get tmpDir(): string {
    return join(this.env.tmpRoot, this.uname);
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
  async submit(prompt: string, from: string = this.env.owner): Promise<number> {
    const hops = this.hopsFrom(from);
    // The prompt waits for the agent to be made: the slot is busy from now, not idle in between.
    this.#waiting++;
    let submission: Submission;
    try {
      const agent = await this.activate();
      this.lastPrompt = prompt;
      submission = agent.submit(stampSender(prompt, from, this.env.owner));
    } finally {
      this.#waiting--;
      // The agent could not be made, or took no prompt: idle again.
      if (this.#waiting === 0 && this.state.get() !== "idle" && !this.agent?.busy)
        this.onEvent({ type: "state", state: "idle" });
    }
    const ticket = this.tickets.issue(submission);
    this.queuedHops.push(hops);
    // The writer learns the prompt was taken only once it is on disk: a crash now cannot lose it.
    await this.session.save();
    const parent = this.session.parent;
    if (parent !== undefined && from === parent && this.session.callback) {
      void submission.then((outcome) =>
        this.session.peers
          .deliver(parent, callbackText(this.uname, outcome, this.lastArtifacts), this.uname)
          .catch((error: unknown) => {
            this.chat.note(`! could not report to ${parent}: ${(error as Error).message}`);
          }),
      );
    }
    return ticket;
  }

  /**
   * The hops a prompt or injection from `from` is at, refused (with an audit line) past the limit: a
   * person's prompt starts again from 0.
   */
  hopsFrom(from: string): number {
    if (from === this.env.owner) return 0;
    const hops = this.session.peers.hopsOf(from) + 1;
    const max = this.env.limits.maxHops;
    if (hops > max) {
      const why = `agent-to-agent hop limit ${max} reached: ${from} may not prompt ${this.uname} until a person prompts again`;
      this.env.audit(`refused a prompt from ${from} to ${this.uname}: ${why}`, from);
      throw new Error(why);
    }
    return hops;
  }

  /** For a remote session: its host and whether olliesrv is connected to it (`connected`, `connecting`, …). */
  get remote(): { destination: string; state: string; lost?: string } | undefined {
    const remote = this.session.remote;
    if (!remote) return undefined;
    return { destination: remote.destination, ...this.env.remotes.state(remote.destination) };
  }

  /** The toolsrv connection of the live agent, if it has one. */
  get toolsrv(): ToolsrvConn | undefined {
    return this.#toolsrv?.();
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
    this.procs.stop();
    if (!agent) return;
    await agent.close();
    this.saved = agent.snapshot();
    this.agent = undefined;
    this.#toolsrv = undefined;
    this.activating = undefined;
  }

  /**
   * Ends what readers block on, for good: `statewait`, `turnwait`, `chat`, `tail` and `fifo.out` readers,
   * now and later, get `reason` (e.g. "session killed") instead of waiting for what will never come.
   */
  end(reason: Error): void {
    this.state.close(reason);
    this.turns.close(reason);
    this.replies.close(reason);
    this.chat.stream.close(reason);
    this.tickets.end(reason);
  }

  /** Starts over with `profile`: the live agent is closed, the history dropped; the next use makes a new one. */
  async reset(profile: string): Promise<void> {
    await this.close();
    this.#profile = profile;
    this.saved = undefined;
    this.#loaded = undefined;
    this.#lastTurn = undefined;
    this.chat.note(`· now running profile ${profile}, with a fresh history`);
  }

  /**
   * Starts a slot that was never used from another agent's checkpoint (a fork): it comes up paused with that
   * history and task state, as a restored agent does, and with its skills.
   */
  adopt(from: { session?: PersistedSession | undefined; skills: readonly string[] }): void {
    if (this.agent || this.saved) throw new Error(`${this.uname} has a history already`);
    this.#skills = [...from.skills];
    if (!from.session) return;
    this.saved = from.session;
    this.chat.replay(from.session.messages);
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
    const { kept, notes } = skillChanges(this.#skills, before, this.env.skills());
    if (notes.length === 0) return;
    for (const note of notes) this.chat.note(note);
    const unloaded = kept.length < this.#skills.length;
    this.#skills = kept;
    this.#skillsStale = true;
    if (!this.agent?.busy) await this.takeSkills();
    if (unloaded) await this.session.save().catch(() => undefined);
  }

  /** Renders the system prompt with the skills as they are now (a failure leaves it for the next idle). */
  private async takeSkills(): Promise<void> {
    this.#skillsStale = false;
    await this.refreshPrompt().catch(() => {
      this.#skillsStale = true;
    });
  }

  /** Renders the system prompt again after the loaded skills changed (a live agent takes it at once). */
  async refreshPrompt(): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    await agent.updateRuntime({ prompt: this.withSkills(this.basePrompt) });
  }

  /** The slot as it is saved (with no history if it was never prompted). */
  toSaved(): SavedAgent {
    const session = this.agent?.snapshot() ?? this.saved;
    return {
      name: this.name,
      profile: this.profile,
      ...(this.backend !== undefined && { backend: this.backend }),
      ...(this.model !== undefined && { model: this.model }),
      ...(this.#skills.length > 0 && { skills: [...this.#skills] }),
      ...(this.lastPrompt && { lastPrompt: this.lastPrompt }),
      ...(this.tickets.issued > 0 && { prompts: this.tickets.issued }),
      ...(this.turns.get() > 0 && {
        turns: { count: this.turns.get(), ...(this.lastOutcome && { last: this.lastOutcome }) },
      }),
      ...(session && { session }),
    };
  }

  /** The longest prompt the daemon takes. */
  get maxPromptBytes(): number {
    return this.env.limits.maxPromptBytes;
  }

  /** Prompts that were waiting when the session was last saved: restoring the agent runs them. */
  get waitingPrompts(): readonly string[] {
    return this.saved?.queued ?? [];
  }

  /**
   * Tokens and cost, as the `usage` and `cost` files show them: the live agent's; for a paused one the
   * session's as last saved. The last turn's of a parked agent are shown until the next turn starts.
   */
  usage(): {
    turn: UsageTotals | undefined;
    session: UsageTotals | undefined;
    compaction: UsageTotals | undefined;
    lastTurnCostUsd: number;
  } {
    const live = this.agent?.usage;
    const last = this.#lastTurn;
    if (live) return last ? { ...live, turn: last.usage, lastTurnCostUsd: last.costUsd } : live;
    return {
      turn: last?.usage,
      session: this.saved?.usage,
      compaction: this.saved?.compactionUsage,
      lastTurnCostUsd: last?.costUsd ?? 0,
    };
  }

  /** The system prompt with the loaded skills' text after it. */
  withSkills(prompt: string): string {
    const skills = this.skills.flatMap((n) => this.env.skills().get(n) ?? []);
    if (skills.length === 0) return prompt;
    return `${prompt}\n\n${skills.map((s) => `## Skill: ${s.name}\n\n${s.text}`).join("\n\n")}`;
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
    const usage = agent.usage;
    this.#lastTurn = { usage: usage.turn, costUsd: usage.lastTurnCostUsd };
    // From here a use makes a new agent, which waits for this one to be closed.
    this.agent = undefined;
    this.#toolsrv = undefined;
    this.activating = undefined;
    this.procs.stop();
    this.#parking = agent.close().finally(() => {
      this.#parking = undefined;
    });
    await this.#parking;
  }

  private async make(): Promise<Agent> {
    await this.#parking;
    const { dir, config } = await this.profileInUse();
    // Its tools are granted this directory: nobody else may own it, or a link in it, on a shared /tmp.
    await privateDir(this.env.tmpRoot);
    await privateDir(this.tmpDir);
    this.reload.madeFrom(config);
    let toolsrv: (() => ToolsrvConn | undefined) | undefined;
    const load = profileLoader({
      agentsDir: dir,
      config: async () => config,
      backend: (name) => this.env.backends.fresh(this.backend ?? name),
      // Summaries go to the backend profile's compaction_model unless the agent profile names its own.
      compactionModel: (name) => this.env.backends.profile(this.backend ?? name).compactionModel,
      tools: async (config) => {
        const autoLoad = this.#loaded ?? config.autoLoad ?? ["client_9p"];
        const remote = this.session.remote;
        // The skill tools are answered here, in front of toolsrv's: skills are the daemon's.
        const shelf = {
          skills: () => this.env.skills(),
          loaded: () => this.skills,
          setLoaded: (names: readonly string[]) => this.setSkills(names),
        };
        // Here or on the session's host, toolsrv is dialled again at the first use after it was lost (it died
        // and was restarted, or the way to it broke), with the tools the agent had loaded.
        const dial = (address: string, loaded?: readonly string[]) =>
          this.dialToolsrv(address, loaded ?? autoLoad);
        const tools = await RedialingTools.open(
          remote ? this.env.remotes.route(remote.destination, dial) : this.env.toolsrv(dial),
        );
        toolsrv = () => tools.current;
        return new WithSkillTools(tools, shelf);
      },
      // Prompt commands read what the agent may have written: they run in its own sandbox.
      prompt: {
        ...this.env.prompt,
        runner: showingCommands(
          sandboxedPrompts(this.env.promptSandbox, {
            uname: this.uname,
            tmpDir: this.tmpDir,
            env: this.session.env,
          }),
          () => this.makingWith("prompt commands"),
        ),
      },
      // A remote session's directory is on its host; its prompt commands and hooks run here, in its private
      // TMPDIR, where nothing of anyone else's lies.
      ...(this.session.remote && { commandsCwd: this.tmpDir }),
    });
    // Its prompt commands have run once the profile is loaded.
    const spec = await load(this.profile, { cwd: this.session.cwd }).finally(() => this.makingWith("idle"));
    if (this.model) spec.backend.setModel(this.model);
    const base = typeof spec.prompt === "string" ? spec.prompt : "";
    this.basePrompt = base;
    const reload = spec.reloadPrompt;
    const options: AgentOptions = {
      ...spec,
      prompt: this.withSkills(base),
      // A prompt read again after a compaction keeps the loaded skills after it, as the first one did.
      ...(reload && {
        reloadPrompt: async () => {
          this.basePrompt = await reload();
          return this.withSkills(this.basePrompt);
        },
      }),
      name: this.name,
      profile: this.profile,
      cwd: this.session.cwd,
      sessionId: this.session.id,
      persist: () => this.session.save(),
      journal: (entry) => this.session.journal(this.name, entry),
      readPlanStep: async () => this.session.planStep(),
      onEvent: (e) => this.onEvent(e),
      compaction: { snapshotDir: this.env.snapshotDir },
    };
    const saved = this.saved;
    // A saved session, or the snapshot a parked agent left, carries on; a fresh agent gets the slot's uname.
    const agent = saved ? await Agent.resume(saved, options) : await Agent.create({ ...options, id: this.uname });
    this.agent = agent;
    this.#toolsrv = toolsrv;
    this.#idle.start();
    return agent;
  }

  /**
   * Dials toolsrv at `address` as this agent with `autoLoad` loaded. Its tools get their own TMPDIR, here or
   * on the session's host (made there for them), so the policy's `{TMPDIR}` grants that and never the
   * shared /tmp. A remote host's tools do not get the key that reaches olliesrv, which they cannot reach
   * from there.
   */
  private async dialToolsrv(address: string, autoLoad: readonly string[]): Promise<ToolsrvConn> {
    const remote = this.session.remote;
    const authenticator = remote ? this.env.remotes.authenticator : this.env.toolsrvAuthenticator;
    return ToolsrvConn.dial({
      address,
      uname: this.uname,
      autoLoad,
      cwd: this.session.cwd,
      env: remote
        ? {
            TMPDIR: await this.env.remotes.agentTmpDir(remote.destination, this.uname),
            ...this.session.env,
          }
        : { TMPDIR: this.tmpDir, ...this.session.env, OLLIE_KEY: this.env.agentKey(this.uname) },
      ...(authenticator && { authenticator }),
    });
  }

  /**
   * What runs while the agent is made, before there is an agent to say so: its prompt commands. A live
   * agent says itself when it runs them again (after a compaction).
   */
  private makingWith(state: "prompt commands" | "idle"): void {
    if (this.agent || this.state.get() === state || (state === "idle" && this.#waiting > 0)) return;
    const e: AgentEvent = { type: "state", state };
    this.activity.event(e);
    publishAgentEvent(this.session.events, this.name, e);
    this.state.set(state);
  }

  private onEvent(e: AgentEvent): void {
    // A prompt waits for the agent being made for it: not idle, whatever the agent says meanwhile (its
    // agentSpawn hook ended); the turn's own state comes next.
    if (e.type === "state" && e.state === "idle" && this.#waiting > 0) return;
    // Said when the turn gives up, not at a failed attempt that a retry may yet make good.
    if (e.type === "turn" && e.outcome.status === "error") {
      const note = unreachableNote(e.outcome.error, this.env.backends, this.env.backendsConf);
      if (note) this.chat.note(note);
    }
    this.chat.event(e);
    this.activity.event(e);
    this.procs.event(e);
    publishAgentEvent(this.session.events, this.name, e);
    if (this.replies.closed) return;
    switch (e.type) {
      case "user":
        if (e.from === "user") this.turnHops = this.queuedHops.shift() ?? 0;
        break;
      case "assistant":
        this.replies.append(e.delta);
        break;
      case "state":
        this.state.set(e.state);
        if (e.state === "idle") {
          this.#idle.start();
          // Nothing runs now (a turn ended, or a compaction from ctl): what changed meanwhile is taken.
          this.reload.turnEnded();
          if (this.#skillsStale) void this.takeSkills();
        } else {
          this.#idle.stop();
          this.#lastTurn = undefined;
        }
        break;
      case "call": {
        const path = artifactOf(e.call.name, e.call.arguments);
        if (path !== undefined) this.artifacts.add(resolve(this.session.cwd, path));
        break;
      }
      case "turn": {
        this.replies.append("\n");
        this.lastArtifacts = [...this.artifacts];
        this.artifacts.clear();
        const o = e.outcome;
        this.lastOutcome = outcomeText(o);
        this.turns.set(this.turns.get() + 1);
        // The agent saved the turn before it said it ended: the count and outcome go to disk now. A failed
        // save is the agent's own saves' to report, and the next one carries them.
        void this.session.save().catch(() => undefined);
        break;
      }
    }
  }

  /**
   * backends.conf changed (`old` is what it was). A paused agent reads the new one when it comes back; a live
   * one takes it now if it is idle, else when its turn ends — the running turn keeps what it started with.
   */
  reconfigure(old: BackendPool): void {
    this.reload.changed(old, this.agent);
  }
}

