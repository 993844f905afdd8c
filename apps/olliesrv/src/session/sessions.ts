import { realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import type { SubmitOptions } from "@ollie/agent-core";
import type { Logger } from "@ollie/log";
import { checkModel } from "../config/backends.js";
import type { AgentSlot } from "./agent-slot.js";
import type { SessionLimits } from "./limits.js";
import { realDirectory } from "./real-directory.js";
import { applyJournals, repairSessionFile } from "./repair-history.js";
import { Session, type SessionSpec } from "./session.js";
import { budgetReason } from "./session-budget.js";
import { quarantineSessionFile, readSessionFiles } from "./session-file.js";
import { SessionIndex } from "./session-index.js";
import type { SessionHome } from "./session-store.js";
import { type Peers, type SessionEnvironment, splitUname } from "./slot-context.js";
import { spawnedTurnTrace } from "./spawn-trace.js";

/** Every session of the daemon. */
export class Sessions implements Peers {
  private readonly byId = new Map<string, Session>();
  /** What `session/idx` shows, and what `session/idxwait` waits on. */
  readonly index = new SessionIndex(() => this.byId.values());
  private readonly killListeners: Array<() => void> = [];
  private readonly home: SessionHome;

  constructor(
    private readonly dir: string,
    private readonly corruptDir: string,
    readonly environment: SessionEnvironment,
    private readonly log: Logger,
  ) {
    this.home = { dir, log };
  }

  private get limits(): SessionLimits {
    return this.environment.policy.limits;
  }

  /** The agent whose uname is `SESSION.NAME`. */
  agent(uname: string): AgentSlot | undefined {
    const named = splitUname(uname);
    return named && this.byId.get(named.session)?.agents.get(named.agent);
  }

  list(): Session[] {
    return [...this.byId.values()];
  }

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  /**
   * Makes a session for `creator`. One an agent makes is its child: one level deeper than the agent's own
   * session, refused past `maxDepth` or when the agent already has `maxChildren`. Past `maxSessions` nobody
   * makes one.
   */
  async create(spec: SessionSpec, creator: string = this.environment.policy.owner): Promise<Session> {
    const named = splitUname(creator);
    const home = named && this.byId.get(named.session);
    let lineage: Pick<SessionSpec, "parent" | "depth" | "cwd"> = {};
    if (spec.mcpServers !== undefined && creator !== this.environment.policy.owner)
      throw new Error(
        `only ${this.environment.policy.owner} may give a session MCP servers: they are commands its tools run`,
      );
    if (this.byId.size >= this.limits.maxSessions)
      throw new Error(`the session limit ${this.limits.maxSessions} is reached: kill a session first`);
    if (named && home?.agents.has(named.agent)) {
      try {
        lineage = await this.lineage(creator, home, spec.cwd);
      } catch (error) {
        this.environment.policy.audit(`refused spawn by ${creator}: ${(error as Error).message}`, creator);
        throw error;
      }
    } else if (spec.remote === undefined) {
      spec = { ...spec, cwd: await realDirectory(spec.cwd ?? process.cwd()) };
    }
    const agent = spec.agent ?? "default";
    // A profile generated in the maker's session goes with the session it makes, which runs it.
    const generated = spec.profiles?.[agent] ?? home?.profiles.get(agent);
    if (generated) spec = { ...spec, profiles: { [agent]: generated } };
    const booked = generated ? undefined : await this.environment.making.profiles.get(agent);
    const backends = this.environment.making.backends;
    if (spec.backend !== undefined) backends.profile(spec.backend);
    const backendName =
      spec.backend ?? generated?.backend ?? booked?.config.backend ?? backends.conf.defaultProfile;
    if (spec.model !== undefined)
      await checkModel(
        this.environment.making.backends,
        spec.backend,
        spec.model,
        this.environment.making.models,
      );
    const session = Session.create(this.home, this.environment, this, { ...spec, ...lineage });
    if (spec.trace) {
      const owner = creator === this.environment.policy.owner;
      const spawning = owner ? undefined : this.agent(creator)?.agent?.runningTurnSpan;
      session.traceFirstTurn(creator, spawnedTurnTrace(spec.trace, spawning, owner));
    }
    // What it may spend starts as its agent profile says, else its backends.conf profile.
    session.budget.limit = {
      ...(booked?.config.budget ?? backends.conf.profiles.get(backendName ?? "")?.budget),
    };
    // Saved before it is listed: a session that cannot be saved (a full disk) is not made at all.
    await session.save();
    this.byId.set(session.id, session);
    this.index.touched();
    return session;
  }

  /**
   * Reads the saved sessions back, paused: nothing connects until an agent is used — except an agent that had
   * prompts waiting, which comes back and runs them, in order.
   */
  async restore(): Promise<number> {
    const files = await readSessionFiles(this.dir, this.corruptDir, this.log.warn);
    // What the agents journaled after their session was last saved is put back first; then what a stop cut
    // off (the call that was running, the turn) is answered as interrupted, and the file saved so at once
    // rather than at the agent's next save. Each session comes back on its own: one that cannot is
    // quarantined, and the others are not lost with it.
    const repaired: Array<{ id: string; journaled: number; added: number }> = [];
    for (const file of files) {
      try {
        const journaled = await applyJournals(this.dir, file, this.log.warn);
        const added = repairSessionFile(file);
        this.byId.set(file.id, new Session(file.id, this.home, this.environment, this, file));
        repaired.push({ id: file.id, journaled, added });
      } catch (error) {
        await quarantineSessionFile(join(this.dir, `${file.id}.json`), this.corruptDir, error, this.log.warn);
      }
    }
    this.index.touched();
    await Promise.all(repaired.filter((r) => r.journaled + r.added > 0).map((r) => this.saveRepaired(r)));
    for (const session of this.byId.values()) {
      for (const slot of session.agents.values()) {
        const waiting = slot.shown.waiting.size;
        if (waiting === 0) continue;
        slot.activate().then(
          () => this.log.info(`${slot.uname}: running ${waiting} prompt(s) that were waiting`),
          (error: unknown) =>
            this.log.error(`${slot.uname}: cannot run its waiting prompts: ${(error as Error).message}`),
        );
      }
    }
    return repaired.length;
  }

  /**
   * Saves a restored session whose history took journal entries or was repaired, saying so (or why it could
   * not: then its journals stay, and the save is tried again).
   */
  private async saveRepaired(r: { id: string; journaled: number; added: number }): Promise<void> {
    try {
      await this.byId.get(r.id)?.save();
      if (r.journaled > 0)
        this.log.info(`session ${r.id}: took ${r.journaled} round(s) and result(s) back from its journal`);
      if (r.added > 0)
        this.log.info(`session ${r.id}: answered ${r.added} cut-off call(s) or turn(s) as interrupted`);
    } catch (error) {
      this.log.error(`session ${r.id}: could not save its restored history: ${(error as Error).message}`);
    }
  }

  /** Where a session `creator` spawns sits: one level deeper than the creator's, in its directory. */
  private async lineage(creator: string, home: Session, wantedCwd: string | undefined) {
    const cwd = await insideOf(home.cwd, wantedCwd);
    const depth = home.depth + 1;
    if (depth > this.limits.maxDepth)
      throw new Error(
        `spawn depth limit ${this.limits.maxDepth} reached: ${creator} is ${depth - 1} spawns deep and may not spawn`,
      );
    const children = this.list().filter((s) => s.parent === creator).length;
    if (children >= this.limits.maxChildren)
      throw new Error(
        `child limit ${this.limits.maxChildren} reached: ${creator} has ${children} sessions; kill one first`,
      );
    return { parent: creator, depth, cwd };
  }

  /** Ends a session and, first, every session its agents spawned (and theirs). */
  async kill(id: string): Promise<void> {
    const session = this.byId.get(id);
    if (!session) throw new Error(`no session ${id}`);
    this.byId.delete(id);
    this.index.touched();
    const children = this.list().filter((s) => s.parent && splitUname(s.parent)?.session === id);
    // A child may already be going (killed on its own meanwhile); that is what was wanted anyway.
    await Promise.all(children.map((c) => this.kill(c.id).catch(() => undefined)));
    await session.kill();
    this.environment.making.checkpoints.forgetSession(id);
    for (const listener of this.killListeners) listener();
    this.log.info(`killed session ${id}${children.length > 0 ? ` and ${children.length} it spawned` : ""}`);
  }

  /** Calls `listener` after each session is killed (the namespace lets go of its files then). */
  onKill(listener: () => void): void {
    this.killListeners.push(listener);
  }

  indexTouched(): void {
    this.index.touched();
  }

  /** The agent-to-agent hops behind the turn `uname` runs (or last ran); 0 for anyone but an agent. */
  sessionOf(uname: string): Session | undefined {
    const named = splitUname(uname);
    return named && this.byId.get(named.session);
  }

  stopSpending(id: string, spent: string, except: string): void {
    for (const session of this.list()) {
      if (!session.lineage().some((s) => s.id === id)) continue;
      const reason = budgetReason(id, session.id, spent);
      for (const slot of session.agents.values())
        if (slot.uname !== except && slot.agent?.stopForBudget(reason))
          this.log.info(`stopped the turn of ${slot.uname}: ${reason}`);
    }
  }

  hopsOf(uname: string): number {
    return this.agent(uname)?.shown.turnHops ?? 0;
  }

  /** Submits `text` to the agent `to`, as `from`. */
  async deliver(to: string, text: string, from: string, trace?: SubmitOptions): Promise<void> {
    const slot = this.agent(to);
    if (!slot) throw new Error(`no agent ${to}`);
    await slot.submit(text, from, trace);
  }

  /**
   * Stops every session, saving each; a session that cannot be saved is logged and the others go on.
   * Resolves with how many could not be saved.
   */
  async close(): Promise<number> {
    const sessions = this.list();
    const results = await Promise.allSettled(sessions.map((s) => s.close()));
    let unsaved = 0;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      unsaved++;
      this.log.error(`could not save session ${sessions[i]!.id}: ${(result.reason as Error).message}`);
    });
    return unsaved;
  }
}

/**
 * The directory a spawned session may work in: its parent's, or one inside it (symlinks resolved), since a
 * session's directory is what its tools may write. Anything else is refused.
 */
async function insideOf(parentCwd: string, wanted: string | undefined): Promise<string> {
  const [root, dir] = await Promise.all([realpath(parentCwd), realDirectory(wanted ?? ".", parentCwd)]);
  if (dir !== root && !dir.startsWith(`${root}${sep}`))
    throw new Error(`a spawned session works inside its parent's directory ${root}, not in ${dir}`);
  return dir;
}
