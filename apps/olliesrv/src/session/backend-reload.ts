import type { Agent, RuntimeSpec } from "@ollie/agent-core";
import type { AgentConfig } from "@ollie/agent-core/config";
import { type BackendPool, type Profile, UnreachableError } from "@ollie/backends";

/** What an agent asked of backends.conf: a profile (undefined: the default) and a model (undefined: its own). */
export interface BackendChoice {
  /** The slot's `backend`, else its agent profile's. */
  backend: string | undefined;
  /** A model the slot was switched to (`model NAME`): kept while the agent stays on the same profile. */
  model: string | undefined;
  /** The agent profile's model, if it names one. */
  profileModel: string | undefined;
  /** The agent profile's compaction model, if it names one. */
  compactionModel: string | undefined;
}

/** How a live agent's backend follows a changed backends.conf. */
export interface BackendChange {
  /** What to give the agent's runtime; none when it keeps what it has. */
  changes?: Partial<RuntimeSpec>;
  /** A line for the chat. */
  note: string;
  /** The agent moved to another profile: a model chosen for the old one does not go with it. */
  dropModel?: boolean;
}

/**
 * What a live agent's backend becomes now that backends.conf went from `old` to `pool`: undefined when its
 * profile did not change, a new backend when it did (or when the default it used is another one now), and a
 * note only when the profile it uses is gone or cannot be made (it then keeps the one it has).
 */
export async function backendChange(
  old: BackendPool,
  pool: BackendPool,
  choice: BackendChoice,
): Promise<BackendChange | undefined> {
  const was = profileIn(old, choice.backend);
  const now = profileIn(pool, choice.backend);
  if (!now) {
    const wanted = choice.backend === undefined ? "no default profile" : `no profile '${choice.backend}'`;
    return { note: `! backends.conf has ${wanted} now: this agent keeps the backend it has` };
  }
  if (was && sameProfile(was, now)) return undefined;
  const moved = was?.name !== now.name;
  const model = (moved ? undefined : choice.model) ?? choice.profileModel;
  try {
    const backend = await pool.fresh(now.name);
    if (model) backend.setModel(model);
    const compactionBackend = choice.compactionModel ? await pool.fresh(now.name) : undefined;
    if (compactionBackend && choice.compactionModel) compactionBackend.setModel(choice.compactionModel);
    return {
      changes: { backend, ...(compactionBackend && { compactionBackend }) },
      note: `· backends.conf changed: this agent now uses '${now.name}' (${now.type}, ${backend.model})`,
      dropModel: moved,
    };
  } catch (error) {
    return {
      note: `! backends.conf changed, but '${now.name}' cannot be used (${(error as Error).message}): this agent keeps the backend it has`,
    };
  }
}

/** What PendingReload reads and changes of an agent's choices (see AgentChoices). */
export interface ReloadSlot {
  /** The profile the slot asked for (`backend`), if any. */
  readonly backend: string | undefined;
  /** A model the slot was switched to, if any. */
  readonly model: string | undefined;
  /** The model it was switched to no longer applies. */
  forgetModel(): void;
}

/**
 * A changed backends.conf that a slot's live agent has yet to take: it takes it at once when idle, else when
 * its turn ends — the running turn keeps what it started with. A paused agent reads the new one when it
 * comes back, and `madeFrom` forgets the change then.
 */
export class PendingReload {
  /** backends.conf as it was when it changed under the live agent, until the agent takes the change. */
  private from: BackendPool | undefined;
  /** The agent profile the live agent was made from. */
  private made: AgentConfig | undefined;

  /**
   * `chain(step)` runs `step` on the live agent after whatever is queued on it and makes what comes next
   * wait for it (the slot's `activating`); false when there is no live agent.
   */
  constructor(
    private readonly slot: ReloadSlot,
    /** Says a line in the agent's chat. */
    private readonly note: (line: string) => void,
    private readonly backends: () => BackendPool,
    private readonly chain: (step: (agent: Agent) => Promise<Agent>) => boolean,
  ) {}

  /** The live agent was made afresh from `config`, and from backends.conf as it is. */
  madeFrom(config: AgentConfig): void {
    this.made = config;
    this.from = undefined;
  }

  /** backends.conf changed from `old`; `agent` is the live agent, if there is one. */
  changed(old: BackendPool, agent: Agent | undefined): void {
    if (!agent) return;
    this.from ??= old;
    if (agent.state === "idle") this.take();
  }

  /** The agent is idle again (its turn ended): the time to take a change that came meanwhile. */
  turnEnded(): void {
    if (this.from) this.take();
  }

  /** Gives the live agent its backend from the new backends.conf; what comes next waits for it. */
  private take(): void {
    const old = this.from;
    if (!old) return;
    const taken = this.chain(async (agent) => {
      const change = await backendChange(old, this.backends(), {
        backend: this.slot.backend ?? this.made?.backend,
        model: this.slot.model,
        profileModel: this.made?.model,
        compactionModel: this.made?.compactionModel,
      });
      if (!change) return agent;
      try {
        if (change.changes) await agent.updateRuntime(change.changes);
        if (change.dropModel) this.slot.forgetModel();
        this.note(change.note);
      } catch (error) {
        this.note(`! could not take the new backends.conf: ${(error as Error).message}`);
      }
      return agent;
    });
    if (taken) this.from = undefined;
  }
}

/**
 * The chat's word on a turn that failed because its backend is not there (UnreachableError): which one, and
 * the next step — writing a backends.conf with `ollie init` when the shipped one is in use, else editing it.
 */
export function unreachableNote(error: unknown, pool: BackendPool, userFile: string): string | undefined {
  if (!(error instanceof UnreachableError)) return undefined;
  const name = error.profile ?? error.provider;
  if (pool.conf.file !== userFile) {
    const ollama = pool.conf.profiles.get(name)?.type === "ollama";
    return `! the backend '${name}' did not answer: no backend is configured yet${ollama ? ", and the shipped default is Ollama on this machine" : ""}. Run 'ollie init PROVIDER' to write ${userFile} ('ollie init' lists the providers; 'ollie init demo' tries Ollie offline, with no key)${ollama ? ", or start Ollama" : ""}; then prompt again.`;
  }
  return `! the backend '${name}' did not answer. Start it, or change [${name}] in ${userFile} (olliesrv reads it again when it is saved); then prompt again. 'ollie backends' shows which backends answer.`;
}

function profileIn(pool: BackendPool, name: string | undefined): Profile | undefined {
  try {
    return pool.profile(name);
  } catch {
    return undefined;
  }
}

/** Whether two profiles make the same backend (the line they are on does not count). */
function sameProfile(a: Profile, b: Profile): boolean {
  const shape = (p: Profile) =>
    JSON.stringify({
      ...p,
      line: 0,
      credential:
        p.credential.kind === "literal"
          ? { kind: "literal", value: p.credential.value.reveal() }
          : p.credential,
    });
  return shape(a) === shape(b);
}
