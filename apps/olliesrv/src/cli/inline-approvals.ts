import type { OllieClient, PendingBypass, Watch } from "@ollie/client";
import type { Palette } from "./colour.js";

/** What `ollie sh` does to ask a question and hear its answer: the next line typed is the answer. */
export interface Asker {
  /** Shows the question (a turn may be on the screen) and makes the next line typed its answer. */
  ask(question: string, prompt: string): void;
  /** The question is over (answered, or decided elsewhere): lines are prompts and commands again. */
  done(): void;
  /** One of sh's own lines. */
  say(text: string): void;
}

const ANSWERS =
  "y (approve) / n (deny) / a (approve, and every later OPERATION request of this session's in this sh)";

/**
 * Bypass requests asked inline in `ollie sh`: a request of the session's agents to run something outside the
 * sandbox is shown as it is filed, and the next line typed decides it — `y` approves, `n [REASON]` denies
 * (telling the agent why), `a` (always) approves it and, for as long as sh runs, every later request of the
 * same operation from this session, saying so. One question at a time, in the order filed; one decided
 * elsewhere meanwhile (`ollie approve`) is dropped, said so. Following the pending list is the owner's alone:
 * for anyone else `open` resolves to undefined and requests wait for the owner as before.
 */
export class InlineApprovals {
  private readonly watching = new AbortController();
  private readonly seen = new Set<number>();
  private readonly queue: PendingBypass[] = [];
  private readonly always = new Set<string>();
  private asking: PendingBypass | undefined;
  private followed: Promise<void> = Promise.resolve();
  private changes: Watch<PendingBypass[]> | undefined;

  private constructor(
    private readonly client: OllieClient,
    private readonly session: string,
    private readonly asker: Asker,
    private readonly p: Palette,
  ) {}

  /**
   * Subscribes to the pending list (nothing is asked until `begin()`): undefined for anyone but the owner,
   * whose alone the list is.
   */
  static async open(
    client: OllieClient,
    session: string,
    asker: Asker,
    p: Palette,
  ): Promise<InlineApprovals | undefined> {
    const approvals = new InlineApprovals(client, session, asker, p);
    const changes = await client.bypass
      .watchPending({ signal: approvals.watching.signal })
      .catch(() => undefined);
    if (!changes) return undefined;
    approvals.changes = changes;
    return approvals;
  }

  /** Asks about what waits now, and what is filed from now on. */
  begin(): void {
    const changes = this.changes;
    if (!changes) return;
    // It ends when stopped, or with the connection: there is nothing more to ask then.
    this.followed = (async () => {
      this.arrived(await this.client.bypass.pending(this.watching.signal));
      for (;;) this.arrived(await changes.next());
    })()
      .catch(() => {})
      .finally(() => changes.close().catch(() => {}));
  }

  /** Whether a question waits for its answer: the next line typed is it. */
  get waiting(): boolean {
    return this.asking !== undefined;
  }

  /** The line typed in answer to the question asked. */
  async answer(line: string): Promise<void> {
    const request = this.asking;
    if (!request) return;
    const [word = "", ...rest] = line.trim().split(/\s+/);
    const choice = word.toLowerCase();
    if (!["y", "yes", "n", "no", "a", "always"].includes(choice)) {
      this.asker.ask(
        this.p.yellow(`answer ${ANSWERS.replace("OPERATION", request.operation)}`),
        prompt(request),
      );
      return;
    }
    this.asking = undefined;
    this.asker.done();
    const handle = this.client.bypass.request(request.number);
    try {
      if (choice.startsWith("n")) {
        const reason = rest.join(" ") || "denied by the owner in ollie sh";
        await handle.deny(reason);
      } else {
        if (choice.startsWith("a")) this.always.add(request.operation);
        await handle.approve();
      }
      this.asker.say(this.p.dim(`bypass request ${request.number}: ${await handle.decision()}`));
    } catch (error) {
      this.asker.say(this.p.red(`bypass request ${request.number}: ${(error as Error).message}`));
    }
    this.next();
  }

  async stop(): Promise<void> {
    this.watching.abort();
    await this.followed;
    await this.changes?.close().catch(() => {});
  }

  /** The pending list as it is now. */
  private arrived(pending: PendingBypass[]): void {
    const numbers = new Set(pending.map((r) => r.number));
    if (this.asking && !numbers.has(this.asking.number)) {
      this.asker.done();
      this.asker.say(this.p.dim(`bypass request ${this.asking.number} was decided elsewhere`));
      this.asking = undefined;
    }
    for (const request of pending) {
      if (this.seen.has(request.number) || !request.agent.startsWith(`${this.session}.`)) continue;
      this.seen.add(request.number);
      this.queue.push(request);
    }
    for (let i = this.queue.length - 1; i >= 0; i--)
      if (!numbers.has(this.queue[i]!.number)) this.queue.splice(i, 1);
    this.next();
  }

  /** Asks about the next request waiting, or approves it at once when its operation is always approved. */
  private next(): void {
    if (this.asking) return;
    const request = this.queue.shift();
    if (!request) return;
    if (this.always.has(request.operation)) {
      void this.client.bypass
        .request(request.number)
        .approve()
        .then(
          () =>
            this.asker.say(
              this.p.dim(
                `bypass request ${request.number} (${request.operation}): approved, as you said always`,
              ),
            ),
          (error: unknown) =>
            this.asker.say(this.p.red(`bypass request ${request.number}: ${(error as Error).message}`)),
        )
        .finally(() => this.next());
      return;
    }
    this.asking = request;
    const question = [
      this.p.bold(
        `${request.agent} asks to run outside the sandbox (bypass request ${request.number}, ${request.operation}):`,
      ),
      `  ${request.command}`,
      ...(request.reason ? [`  because: ${request.reason}`] : []),
      this.p.dim(ANSWERS.replace("OPERATION", request.operation)),
    ].join("\n");
    this.asker.ask(question, prompt(request));
  }
}

const prompt = (r: PendingBypass) => `approve ${r.number}? [y/n/a] `;
