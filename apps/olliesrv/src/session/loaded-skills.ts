import type { Agent } from "@ollie/agent-core";
import type { Skill } from "../config/skills.js";
import { skillChanges } from "./skill-changes.js";

/** The live agent whose system prompt the skills go into, and its profile's prompt before them. */
export interface PromptedAgent {
  readonly agent: Agent;
  basePrompt(): string;
}

/**
 * The skills loaded into an agent's system prompt (by `skill_load`, `cfg` or a fork), and the prompt they
 * make. A live agent takes a change at once when nothing runs, else once it is idle again: a turn keeps one
 * system prompt.
 */
export class LoadedSkills {
  #names: string[];
  /** The skills directory changed while something ran: the system prompt is rendered again once idle. */
  #stale = false;

  constructor(
    names: readonly string[],
    /** The skills there are now (the user's and the shipped ones). */
    private readonly available: () => ReadonlyMap<string, Skill>,
    private readonly live: () => PromptedAgent | undefined,
  ) {
    this.#names = [...names];
  }

  get names(): readonly string[] {
    return this.#names;
  }

  /** Loads exactly `names` (a live agent takes them at once). */
  async set(names: readonly string[]): Promise<void> {
    this.#names = [...new Set(names)];
    await this.render();
  }

  /**
   * The skills directory changed (`before`: the skills there were). A loaded skill that is gone is unloaded,
   * one that changed is rendered anew; returns a chat note for each, and whether one was unloaded. A live
   * agent takes them now if nothing runs, else at `idle`.
   */
  async changed(before: ReadonlyMap<string, Skill>): Promise<{ notes: string[]; unloaded: boolean }> {
    const { kept, notes } = skillChanges(this.#names, before, this.available());
    if (notes.length === 0) return { notes, unloaded: false };
    const unloaded = kept.length < this.#names.length;
    this.#names = kept;
    this.#stale = true;
    if (!this.live()?.agent.busy) await this.takeChanges();
    return { notes, unloaded };
  }

  /** Nothing runs now: a change that came meanwhile is taken. */
  idle(): void {
    if (this.#stale) void this.takeChanges();
  }

  /** The system prompt with the loaded skills' text after it. */
  withSkills(prompt: string): string {
    const skills = this.#names.flatMap((n) => this.available().get(n) ?? []);
    if (skills.length === 0) return prompt;
    return `${prompt}\n\n${skills.map((s) => `## Skill: ${s.name}\n\n${s.text}`).join("\n\n")}`;
  }

  /** Renders the system prompt with the skills as they are now (a failure leaves it for the next idle). */
  private async takeChanges(): Promise<void> {
    this.#stale = false;
    await this.render().catch(() => {
      this.#stale = true;
    });
  }

  /** Gives the live agent, if any, its system prompt with the loaded skills as they are now. */
  private async render(): Promise<void> {
    const live = this.live();
    if (!live) return;
    await live.agent.updateRuntime({ prompt: this.withSkills(live.basePrompt()) });
  }
}
