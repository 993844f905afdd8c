import { Agent } from "../agent/agent.js";
import { EventStream, type EventsOptions } from "../events/event-stream.js";
import { parseBudget, type SessionBudget } from "../formats/budget.js";
import { keyValues } from "../formats/key-values.js";
import type { NamespaceFiles } from "../namespace/files.js";
import { agentFile, checkAgentName, checkSessionId, sessionFile } from "../namespace/paths.js";
import { type ForkOptions, forkSpec } from "./session-spec.js";

/**
 * A session (`session/ID/`): its agents, its events, its plan and environment, and the commands of its
 * ctl. A handle: making one reads nothing, and a session that is not there answers each request with a
 * RefusedError.
 */
export class Session {
  /** @internal Made by `OllieClient.session` and `newSession`. */
  constructor(
    private readonly files: NamespaceFiles,
    readonly id: string,
  ) {
    checkSessionId(id);
  }

  /** One of its agents (`main`, the one it was made with, by default). */
  agent(name = "main"): Agent {
    return new Agent(this.files, this.id, name);
  }

  /** The names of its agents. */
  async agents(signal?: AbortSignal): Promise<string[]> {
    return this.files.list(sessionFile(this.id, "agent"), signal);
  }

  /**
   * Writes a command to the session's ctl: `rename NAME`, `cd DIR`, `remote [USER@]HOST[:DIR]`, `local DIR`,
   * `grant UNAME`, `revoke UNAME`, `budget …`, `kill` (see NAMESPACE.md). A refusal is a RefusedError saying why.
   */
  async ctl(command: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (/[\n\r]/.test(command)) throw new TypeError("a ctl command is one line");
    await this.files.write(sessionFile(this.id, "ctl"), `${command}\n`, options.signal);
  }

  /**
   * Ends the session — the sessions its agents made first — and removes its file. With `idle`, only when
   * nothing runs in it, in the sessions it made, or in the agent that made it (`true`), and — a number of
   * seconds — nothing has for that long: otherwise a RefusedError says what runs, or when something did.
   */
  async kill(options: { signal?: AbortSignal; idle?: true | number } = {}): Promise<void> {
    const { idle } = options;
    if (typeof idle === "number" && !(Number.isSafeInteger(idle) && idle >= 0))
      throw new TypeError(`idle takes whole seconds, not ${idle}`);
    await this.ctl(
      idle === undefined ? "kill" : idle === true ? "kill --idle" : `kill --idle ${idle}`,
      options,
    );
  }

  /**
   * A new session from a checkpoint of one of its agents (`main` by default): its profile, backend, model,
   * skills, history and task state (with `clean`, the task state alone), this session's directory, plan and
   * environment. Made for whoever this client is, as `newSession` makes one.
   */
  async fork(options: ForkOptions = {}): Promise<Session> {
    const agent = checkAgentName(options.agent ?? "main");
    const id = await this.files.exchange(
      agentFile(this.id, agent, "fork"),
      forkSpec(options),
      options.signal,
    );
    return new Session(this.files, id);
  }

  /**
   * Subscribes to the session's events, from the moment this resolves (see EventStream): everything, or
   * what `topics` lets through.
   */
  events(options: EventsOptions = {}): Promise<EventStream> {
    return EventStream.open(this.files, sessionFile(this.id, "events"), options);
  }

  /** Its Markdown checklist: the first unchecked `- [ ]` item is its agents' plan step. */
  async plan(signal?: AbortSignal): Promise<string> {
    return this.files.read(sessionFile(this.id, "plan"), signal);
  }

  async setPlan(plan: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.files.write(sessionFile(this.id, "plan"), plan, options.signal);
  }

  /**
   * What it may spend and has spent: its agents' requests and compactions, and those of every session made
   * from it. Set it with `ctl("budget 2.50")`, `ctl("budget tokens 50000")` or `ctl("budget off")`.
   */
  async budget(signal?: AbortSignal): Promise<SessionBudget> {
    return parseBudget(await this.files.read(sessionFile(this.id, "budget"), signal));
  }

  /** The environment its agents' tools run with. */
  async env(signal?: AbortSignal): Promise<Record<string, string>> {
    return keyValues(await this.files.read(sessionFile(this.id, "env"), signal));
  }

  /** Replaces that environment (the owner's alone: it fills the sandbox policy's templates). */
  async setEnv(env: Record<string, string>, options: { signal?: AbortSignal } = {}): Promise<void> {
    const lines = Object.entries(env).map(([name, value]) => {
      if (!/^[^=\n\r]+$/.test(name) || /[\n\r]/.test(value))
        throw new TypeError(`'${name}' cannot be set: a name without '=', and values of one line`);
      return `${name}=${value}\n`;
    });
    await this.files.write(sessionFile(this.id, "env"), lines.join(""), options.signal);
  }
}
