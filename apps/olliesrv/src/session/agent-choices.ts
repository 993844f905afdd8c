import type { Agent } from "@ollie/agent-core";
import { checkModel } from "../config/backends.js";
import type { SavedAgent } from "./session-file.js";
import type { AgentMaking } from "./slot-context.js";

/**
 * What an agent was told to run with: its agent profile, and the backends.conf profile, model and step limit
 * it was switched to (`cfg`), else its profile's. A live agent takes a switch at once; the caller saves.
 */
export class AgentChoices {
  #profile: string;
  #backend: string | undefined;
  #model: string | undefined;
  #maxSteps: number | undefined;

  constructor(
    private readonly making: Pick<AgentMaking, "backends" | "models">,
    profile: string,
    backend: string | undefined,
    model: string | undefined,
    maxSteps?: number,
  ) {
    this.#profile = profile;
    this.#backend = backend;
    this.#model = model;
    this.#maxSteps = maxSteps;
  }

  /** The agent profile it runs. */
  get profile(): string {
    return this.#profile;
  }

  /** The backends.conf profile it was switched to, if it was (else its agent profile's). */
  get backend(): string | undefined {
    return this.#backend;
  }

  /** The model it was switched to, if it was (else its backend's). */
  get model(): string | undefined {
    return this.#model;
  }

  /** The step limit it was given, if it was (else its profile's). */
  get maxSteps(): number | undefined {
    return this.#maxSteps;
  }

  /**
   * Limits its turns to `steps` rounds of tool calls; `live` takes it at once (a running turn at its next
   * round). The limit its profile gives (`profileLimit`) is no choice: it is forgotten, and the agent follows
   * its profile again — so a limit set for a while and then set back leaves nothing behind.
   */
  async useMaxSteps(steps: number, profileLimit: number, live: Agent | undefined): Promise<void> {
    this.#maxSteps = steps === profileLimit ? undefined : steps;
    await live?.updateRuntime({ maxSteps: steps });
  }

  /** What it was switched to, for the making of its next live agent. */
  switched(): { backend: string | undefined; model: string | undefined; maxSteps: number | undefined } {
    return { backend: this.#backend, model: this.#model, maxSteps: this.#maxSteps };
  }

  /** What it was switched to, as its session file keeps it. */
  toSaved(): Pick<SavedAgent, "backend" | "model" | "maxSteps"> {
    return {
      ...(this.#backend !== undefined && { backend: this.#backend }),
      ...(this.#model !== undefined && { model: this.#model }),
      ...(this.#maxSteps !== undefined && { maxSteps: this.#maxSteps }),
    };
  }

  /** Runs `profile` from now (the slot starts over with a fresh history). */
  useProfile(profile: string): void {
    this.#profile = profile;
  }

  /** Switches the model, checked against its backend's list first; `live` takes it at once. */
  async useModel(model: string, live: Agent | undefined): Promise<void> {
    await checkModel(this.making.backends, this.#backend, model, this.making.models);
    this.#model = model;
    live?.runtime.backend.setModel(model);
  }

  /** Switches to another backends.conf profile (and its model); `live` takes it at once. */
  async useBackend(name: string, live: Agent | undefined): Promise<void> {
    const backend = await this.making.backends.fresh(name);
    this.#backend = name;
    this.#model = undefined;
    await live?.updateRuntime({ backend });
  }

  /** The model it was switched to no longer applies (its backend changed under it). */
  forgetModel(): void {
    this.#model = undefined;
  }
}
