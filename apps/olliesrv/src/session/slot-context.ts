import type { BudgetedRequest, JournalEntry, SubmitOptions } from "@ollie/agent-core";
import type { BackendPool } from "@ollie/backends";
import type { Authenticator } from "@ollie/ninep";
import type { CheckpointRepos } from "../checkpoints/checkpoint-repos.js";
import type { ModelCache } from "../config/model-cache.js";
import type { BookedProfile, ProfileBook } from "../config/profile-book.js";
import type { Skill } from "../config/skills.js";
import type { RemoteHosts } from "../remote/remote-hosts.js";
import type { RemoteTarget } from "../remote/remote-target.js";
import type { AddressDial, ToolsrvRoute } from "../toolsrv/redialing-tools.js";
import type { EventBus } from "./event-bus.js";
import type { SessionLimits } from "./limits.js";
import type { LiveAgents } from "./live-agents.js";
import type { SessionMcpServers } from "./mcp-servers.js";
import type { PromptSandbox } from "./sandboxed-prompts.js";
import type { SessionBudget } from "./session-budget.js";

/** What it takes to make an agent, and to keep it: what the daemon gives every agent it makes. */
export interface AgentMaking {
  backends: BackendPool;
  /** Every backend profile's model list, fetched at start and when backends.conf changes. */
  models: ModelCache;
  /**
   * The agent profiles — the user's agents/ first, then the shipped ones — as agents are made from them (the
   * last good version of each).
   */
  profiles: ProfileBook;
  skills(): ReadonlyMap<string, Skill>;
  /**
   * The route to the daemon's toolsrv for an agent that dials it with `dial` (see RedialingTools): the one
   * olliesrv started and restarts when it dies, or the one given with `--toolsrv`.
   */
  toolsrv(dial: AddressDial): ToolsrvRoute;
  /** The hosts remote sessions run their tools on. */
  remotes: Pick<RemoteHosts, "route" | "state" | "authenticator" | "agentTmpDir">;
  /** $OLLIE and the environment prompt commands and hooks run with. */
  prompt: { ollieDir: string; env: NodeJS.ProcessEnv };
  /** How prompt commands are confined: the agents' sandbox policy, read-only (see sandboxedPrompts). */
  promptSandbox: PromptSandbox;
  /** Where compaction snapshots go. */
  snapshotDir: string;
  /** The checkpoints of the sessions' directories, kept under the data directory. */
  checkpoints: CheckpointRepos;
  /** backends.conf, for telling people where to configure a backend. */
  backendsConf: string;
  /** The secret an agent's tool processes prove its uname with (OLLIE_KEY in their environment). */
  agentKey(uname: string): string;
  /** Where each agent's private TMPDIR is made (so no agent's tools share /tmp with another's). */
  tmpRoot: string;
  /** How long a live agent may stay idle before it is parked (see AgentSlot.park), in ms; 0: for ever. */
  idleCloseMs: number;
  /** The daemon's count of live agents, which each slot keeps up to date. */
  liveAgents: LiveAgents;
  /** How olliesrv proves itself to toolsrv. */
  toolsrvAuthenticator?: Authenticator;
}

/** What the namespace enforces on what people and agents ask of sessions. */
export interface SessionPolicy {
  /** The human's uname: prompts from anyone else are stamped with their sender. */
  owner: string;
  /** Records a refusal in the audit trail, by the principal (or peer) it came from. */
  audit(line: string, source?: string): void;
  limits: SessionLimits;
}

/** What the daemon gives its sessions: how agents are made, and what is enforced on them. */
export interface SessionEnvironment {
  readonly making: AgentMaking;
  readonly policy: SessionPolicy;
}

/** The other agents of the daemon, as an agent reaches them: the Sessions that hold them all. */
/**
 * What a session's budget needs of another session: its budget, the agent that made it, a save, and its
 * events (where its budget's warnings go).
 */
export interface BudgetedSession {
  readonly id: string;
  readonly parent: string | undefined;
  readonly budget: SessionBudget;
  readonly events: EventBus;
  save(): Promise<void>;
}

export interface Peers {
  /** The session of the agent `uname`, if it is there: a session's parent's, for its budget. */
  sessionOf(uname: string): BudgetedSession | undefined;
  /**
   * Stops every running turn charged to session `id`'s budget — its own agents' and those of every session
   * made from it — but `except`'s (the agent whose request spent it, which is refused at its next one):
   * `spent` says which limit was reached.
   */
  stopSpending(id: string, spent: string, except: string): void;
  /** The agent-to-agent hops behind the turn `uname` runs (or last ran); 0 for anyone but an agent. */
  hopsOf(uname: string): number;
  /** Submits `text` to the agent `to` as `from` (how a child's callback reaches its parent). */
  deliver(to: string, text: string, from: string, trace?: SubmitOptions): Promise<void>;
  /**
   * Something `session/idx` shows of a session may have changed — its name, its directory, an agent's
   * state — so readers of `session/idxwait` may be due an answer.
   */
  indexTouched(): void;
}

/** The session and agent an agent's uname (`SESSION.AGENT`, see AgentSlot.uname) names. */
export function splitUname(uname: string): { session: string; agent: string } | undefined {
  const dot = uname.indexOf(".");
  return dot > 0 ? { session: uname.slice(0, dot), agent: uname.slice(dot + 1) } : undefined;
}

/** What a slot needs of its session. */
export interface SlotSession {
  readonly id: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** The host its tools run on, when not this one. */
  readonly remote: RemoteTarget | undefined;
  /** Its own MCP servers, which its agents' toolsrv connections take. */
  readonly mcpServers: SessionMcpServers | undefined;
  /**
   * Charges a request of its agent `by` (a uname) to its budget, and to those of the sessions it was made
   * from.
   */
  charge(usd: number, tokens: number, by: string): void;
  /** Why `request` may not be made now, by its budget or one above it (see SessionBudget.refusal). */
  spendingRefusal(request: BudgetedRequest): string | undefined;
  /** The agent that spawned the session, which hears how the turns it asked for ended. */
  readonly parent: string | undefined;
  /** False when the parent waits for the turns itself and wants no callbacks. */
  readonly callback: boolean;
  /** Where a prompt from `from` belongs in a trace, when it is the first its maker asks (see spawn-trace.ts). */
  takeTurnTrace(from: string): SubmitOptions | undefined;
  /** The agent profile `name` as the session's agents are made from it (its generated ones first). */
  profile(name: string): Promise<BookedProfile>;
  save(): Promise<void>;
  /** One of its agents began or ended something now: the session was active (see busyReason). */
  stirred(): void;
  /** Appends to agent `agent`'s journal (agent-core's `journal`): on the disk when it resolves. */
  journal(agent: string, entry: JournalEntry): Promise<void>;
  planStep(): string | undefined;
  /** Where the agent's events are published, as `agent.NAME.TYPE` (the session's `events` file). */
  readonly events: EventBus;
  readonly peers: Peers;
}
