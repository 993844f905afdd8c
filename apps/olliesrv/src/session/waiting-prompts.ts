/** A prompt waiting in an agent's queue for the turns ahead of it (a line of its `queue` file). */
export interface WaitingPrompt {
  /** Its number (`prompts/N`); undefined for one that has none (see WaitingPrompts.restored). */
  ticket: number | undefined;
  /** Who wrote it (a uname); undefined when not known. */
  from: string | undefined;
  /** The prompt as it was written (a restored one as its agent sees it, the sender's stamp included). */
  text: string;
}

/**
 * The prompts waiting in an agent's queue behind the running turn, oldest first, with their numbers and
 * writers — what the agent's `queue` file lists — and `changed` told the count whenever it moves. The
 * agent's queue itself (@ollie/agent-core's) holds only texts: this follows it, the slot saying what enters
 * it and how many it still holds, and a prompt taken into a turn is always the oldest.
 */
export class WaitingPrompts {
  #list: WaitingPrompt[] = [];
  #ended = false;

  constructor(
    private readonly changed: (waiting: number) => void,
    restored: readonly string[] = [],
  ) {
    this.#list = restored.map(unnumbered);
  }

  /** How many wait. */
  get size(): number {
    return this.#list.length;
  }

  /** The waiting prompts, oldest first. */
  get list(): readonly WaitingPrompt[] {
    return this.#list;
  }

  /**
   * A prompt went into the agent's queue at `position` (the turns ahead of it): one that runs at once
   * (position 0) never waits.
   */
  submitted(position: number, prompt: WaitingPrompt): void {
    if (position === 0 || this.#ended) return;
    this.#list.push(prompt);
    this.changed(this.#list.length);
  }

  /** The agent's queue holds `held` prompts now: those taken into a turn since, the oldest, wait no more. */
  held(held: number): void {
    if (this.#list.length <= held) return;
    this.#list.splice(0, this.#list.length - held);
    this.changed(this.#list.length);
  }

  /**
   * The prompts a paused agent runs when it is made again, with no number: those of a restored session, or
   * those its closing took off the queue as olliesrv stopped (their numbers' turns ended `interrupted`).
   * None: its history was dropped, and they with it.
   */
  restored(prompts: readonly string[]): void {
    if (this.#ended) return;
    const before = this.#list.length;
    this.#list = prompts.map(unnumbered);
    if (this.#list.length !== before) this.changed(this.#list.length);
  }

  /** The agent ended (its session was killed): nothing waits, now or later. */
  end(): void {
    if (this.#ended) return;
    this.restored([]);
    this.#ended = true;
  }

  /**
   * The `queue` file: a line per waiting prompt, oldest first, tab-separated — its number, its writer's
   * uname (each `-` when there is none), and its text as a JSON string, so that a prompt of many lines,
   * tabs or quotes stays on its line.
   */
  text(): string {
    return this.#list
      .map((p) => `${p.ticket ?? "-"}\t${p.from ?? "-"}\t${JSON.stringify(p.text)}\n`)
      .join("");
  }
}

const unnumbered = (text: string): WaitingPrompt => ({ ticket: undefined, from: undefined, text });
