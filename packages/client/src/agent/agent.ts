import { type ChatOptions, ChatStream } from "../chat/chat-stream.js";
import { RefusedError, ReplyFormatError } from "../errors.js";
import { EventStream } from "../events/event-stream.js";
import type { AgentEventBody } from "../events/event-types.js";
import { type AgentActivity, parseActivity } from "../formats/activity.js";
import {
  type AgentConfig,
  type AgentSettings,
  parseAgentConfig,
  settingsLines,
} from "../formats/agent-config.js";
import { type AgentState, parseState } from "../formats/agent-state.js";
import { type Checkpoints, parseCheckpoints } from "../formats/checkpoints.js";
import { type HistoryMessage, parseHistory } from "../formats/history.js";
import { type Outcome, parseOutcome } from "../formats/outcome.js";
import { parseProcesses, type ToolProcess } from "../formats/processes.js";
import { parseQueue, type QueuedPrompt } from "../formats/queue.js";
import { type ModelInfo, parseModels, parseSkills, type SkillInfo } from "../formats/tables.js";
import {
  type AgentCost,
  type AgentUsage,
  type ContextSize,
  parseContextSize,
  parseCost,
  parseUsage,
} from "../formats/usage.js";
import type { NamespaceFiles } from "../namespace/files.js";
import { type AgentFile, agentFile, checkAgentName, processFile, sessionFile } from "../namespace/paths.js";
import { Watch } from "../streams/watch.js";
import { Prompt } from "./prompt.js";

/** What an agent's ctl answers `stop` with when no turn runs (the command, then why): no failure of `stop()`. */
const NOTHING_RUNNING = "stop: nothing is running";

/** A wait for an agent's state: until it is this state, or until this says it is the one. */
export type StateWanted = AgentState | ((state: AgentState) => boolean);

/**
 * One agent of a session (`session/ID/agent/NAME`): prompt it and follow its turns, stop it, read and change
 * its settings. A handle: making one reads nothing, and an agent that is not there answers each request
 * with a RefusedError.
 */
export class Agent {
  /** @internal Made by `Session.agent`. */
  constructor(
    private readonly files: NamespaceFiles,
    readonly session: string,
    readonly name: string,
  ) {
    checkAgentName(name);
  }

  /** The principal it is: `SESSION.AGENT`. */
  get uname(): string {
    return `${this.session}.${this.name}`;
  }

  /**
   * Writes a prompt and resolves once the agent has taken it (a running turn makes it wait in the agent's
   * queue, not here): with its number, how its turn ends (`ended`), and its chat (`chat()`). A refusal — the
   * prompt is empty, too long, or the agent's own — is a RefusedError. The signal aborts the write, and the
   * waits of `ended` and `chat()`; it never stops a turn (`stop()` does).
   */
  async prompt(text: string, options: { signal?: AbortSignal } = {}): Promise<Prompt> {
    const { signal } = options;
    const from = await this.position(signal);
    const path = this.file("prompt");
    const answer = await this.files.exchange(path, text, signal);
    const n = Number(answer);
    if (!Number.isSafeInteger(n) || n < 1) throw new ReplyFormatError(path, answer, "not a prompt's number");
    return new Prompt(this.files, this.session, this.name, n, from, signal);
  }

  /**
   * Stops the running turn: the model request is closed and its tools' processes end. Resolves true when a
   * turn was stopped, false when none was running (a stop may race the turn's end: that is no failure).
   */
  async stop(): Promise<boolean> {
    try {
      await this.ctl("stop");
      return true;
    } catch (error) {
      // 9P2000 refuses with words alone; these are the ones NAMESPACE.md gives for a stop with nothing to stop.
      if (error instanceof RefusedError && error.reason === NOTHING_RUNNING) return false;
      throw error;
    }
  }

  /**
   * Writes a command to the agent's ctl: `compact`, `model NAME`, `backend PROFILE`, `agent PROFILE`,
   * `clear`, `queue TEXT`, `inject TEXT`, `rewrite TEXT`, `skill load NAME`, `proc kill ID`… (see
   * NAMESPACE.md). A command olliesrv refuses is a RefusedError saying why.
   */
  async ctl(command: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (/[\n\r]/.test(command)) throw new TypeError("a ctl command is one line");
    await this.files.write(this.file("ctl"), `${command}\n`, options.signal);
  }

  async state(signal?: AbortSignal): Promise<AgentState> {
    const path = this.file("state");
    return parseState(await this.files.read(path, signal), path);
  }

  /** What it is doing now: its state, the tools running and the first one's argument, since when. */
  async activity(signal?: AbortSignal): Promise<AgentActivity> {
    return parseActivity(await this.files.read(this.file("activity"), signal));
  }

  /**
   * Follows its state (`statewait`): each change from the moment this resolves, none missed. Open it before
   * what changes the state.
   */
  watchState(options: { signal?: AbortSignal } = {}): Promise<Watch<AgentState>> {
    const path = this.file("statewait");
    return Watch.open(this.files, path, (text) => parseState(text, path), options.signal);
  }

  /**
   * Waits, with blocking reads of `statewait`, until the agent's state is `until` (at once if it is) — or,
   * without `until`, for its next change from now — and answers the state. A killed session ends the wait
   * with a RefusedError.
   */
  async waitState(options: { until?: StateWanted; signal?: AbortSignal } = {}): Promise<AgentState> {
    const { until, signal } = options;
    const changes = await this.watchState(signal ? { signal } : {});
    try {
      if (until === undefined) return await changes.next();
      const wanted = typeof until === "function" ? until : (state: AgentState) => state === until;
      let state = await this.state(signal);
      while (!wanted(state)) state = await changes.next();
      return state;
    } finally {
      await changes.close();
    }
  }

  /** How many turns it has finished. */
  async turns(signal?: AbortSignal): Promise<number> {
    return this.count(this.file("turns"), await this.files.read(this.file("turns"), signal));
  }

  /** Follows its finished turns (`turnwait`): the count at each change from the moment this resolves. */
  watchTurns(options: { signal?: AbortSignal } = {}): Promise<Watch<number>> {
    const path = this.file("turnwait");
    return Watch.open(this.files, path, (text) => this.count(path, text), options.signal);
  }

  /** Waits, with blocking reads of `turnwait`, until it has finished at least `atLeast` turns; answers how many. */
  async waitTurns(atLeast: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    const changes = await this.watchTurns(options);
    try {
      let turns = await this.turns(options.signal);
      while (turns < atLeast) turns = await changes.next();
      return turns;
    } finally {
      await changes.close();
    }
  }

  /** How its last turn ended; undefined before its first. */
  async outcome(signal?: AbortSignal): Promise<Outcome | undefined> {
    const path = this.file("outcome");
    const text = (await this.files.read(path, signal)).trim();
    return text === "" ? undefined : parseOutcome(text, path);
  }

  /** The last prompt it took; undefined before its first. */
  async lastPrompt(signal?: AbortSignal): Promise<string | undefined> {
    const text = await this.files.read(this.file("prompt.prev"), signal);
    return text === "" ? undefined : text.replace(/\n$/, "");
  }

  /**
   * The prompts waiting behind its running turn, oldest first (`queue`): each with its number, writer and
   * whole text. Empty when none waits; a `queue` event (see `events`) says when to ask again.
   */
  async queue(signal?: AbortSignal): Promise<QueuedPrompt[]> {
    const path = this.file("queue");
    return parseQueue(await this.files.read(path, signal), path);
  }

  /**
   * Follows its chat (`tail`) from `from` — now, the start, or a byte position — as pieces of one line at
   * most, each with its line's kind. Subscribed once this resolves.
   */
  chat(options: ChatOptions = {}): Promise<ChatStream> {
    return ChatStream.open(this.files, this.session, this.name, options);
  }

  /**
   * Subscribes to this agent's events (of the `types` given, else all), from the moment this resolves: the
   * session's `events` filtered to `agent.NAME.TYPE` (see `Session.events`).
   */
  events(
    options: { types?: readonly AgentEventBody["type"][]; signal?: AbortSignal } = {},
  ): Promise<EventStream> {
    const { types, signal } = options;
    const topics = (types?.length ? types : ["*"]).map((type) => `agent.${this.name}.${type}`);
    return EventStream.open(this.files, sessionFile(this.session, "events"), {
      topics,
      ...(signal && { signal }),
    });
  }

  /** The whole conversation as text, as people read it (see NAMESPACE.md's chat). */
  async chatText(signal?: AbortSignal): Promise<string> {
    return this.files.read(this.file("chat"), signal);
  }

  /**
   * Its history as the model reads it (`context`): the owner's and the agent's own alone. Reading it connects
   * a paused agent.
   */
  async history(signal?: AbortSignal): Promise<HistoryMessage[]> {
    const path = this.file("context");
    return parseHistory(await this.files.read(path, signal), path);
  }

  /** The chat's length in bytes: a position `chat({ from })` can go on from. */
  async chatLength(signal?: AbortSignal): Promise<number> {
    return this.position(signal);
  }

  /** Its tokens, requests and cost: the running (or last) turn's, the session's and compaction's. */
  async usage(signal?: AbortSignal): Promise<AgentUsage> {
    const path = this.file("usage");
    return parseUsage(await this.files.read(path, signal), path);
  }

  /** What it cost, in US dollars (to four places). */
  async cost(signal?: AbortSignal): Promise<AgentCost> {
    const path = this.file("cost");
    return parseCost(await this.files.read(path, signal), path);
  }

  /** Its settings: profile, backend, model, directory, skills, state, and where a remote session's tools run. */
  async cfg(signal?: AbortSignal): Promise<AgentConfig> {
    const path = this.file("cfg");
    return parseAgentConfig(await this.files.read(path, signal), path);
  }

  /** Changes its model, backend or profile (through `cfg`); a refusal is a RefusedError saying why. */
  async configure(settings: AgentSettings, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.files.write(this.file("cfg"), settingsLines(settings), options.signal);
  }

  /** The models of its backend (reading them connects no paused agent). */
  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    return parseModels(await this.files.read(this.file("models"), signal));
  }

  /** The skills it may load, and whether each is loaded (`skill load NAME` on `ctl` loads one). */
  async skills(signal?: AbortSignal): Promise<SkillInfo[]> {
    const path = this.file("skills");
    return parseSkills(await this.files.read(path, signal), path);
  }

  /** How full its next request is against the model's window (connects a paused agent). */
  async contextSize(signal?: AbortSignal): Promise<ContextSize> {
    const path = this.file("ctxsz");
    return parseContextSize(await this.files.read(path, signal), path);
  }

  /** The states of the session's directory recorded before its turns wrote, and where they are kept. */
  async checkpoints(signal?: AbortSignal): Promise<Checkpoints> {
    return parseCheckpoints(await this.files.read(this.file("checkpoints"), signal));
  }

  /**
   * Makes the session's directory as checkpoint `n` has it (`files`), cuts the conversation back to before
   * its turn (`chat`), or both; the owner's alone, refused while a turn runs (a RefusedError says why).
   */
  async rewind(
    n: number,
    scope: "files" | "chat" | "both" = "files",
    options: { signal?: AbortSignal } = {},
  ) {
    if (!Number.isSafeInteger(n) || n < 1) throw new TypeError(`a checkpoint's number, not ${n}`);
    await this.ctl(`rewind ${n} ${scope}`, options);
  }

  /** Rewinds the last turn that wrote (again: the turn before), as `ollie undo` does. */
  async undo(scope: "files" | "chat" | "both" = "files", options: { signal?: AbortSignal } = {}) {
    await this.ctl(`undo ${scope}`, options);
  }

  /** Its tool processes at toolsrv (`proc/idx`, asked of toolsrv at the read), oldest first. */
  async processes(signal?: AbortSignal): Promise<ToolProcess[]> {
    const path = this.file("proc/idx");
    return parseProcesses(await this.files.read(path, signal), path);
  }

  /**
   * What tool process `id` printed so far, stdout and stderr as they came (`proc/ID/output`; toolsrv keeps
   * the last MiB). A read of that file at its end waits for more while the process runs, so this does not
   * read to the end: it reads until a read comes back short and answers what was there then — all of it
   * once the process has ended. While the process runs and has printed nothing yet (or what it printed ends
   * exactly where a read of 64 KiB does), there is no short read to stop at, and the call waits for its next
   * output or its end: give a `signal` to bound that. A process toolsrv no longer keeps is a RefusedError
   * (`process ID is gone`); a TypeError for what is not a process id.
   */
  async processOutput(id: number, signal?: AbortSignal): Promise<string> {
    return (await this.files.readSoFar(processFile(this.session, this.name, id, "output"), signal)).toString(
      "utf8",
    );
  }

  /** Kills tool process `id` and what it started (`kill` to `proc/ID/ctl`). */
  async killProcess(id: number, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.files.write(processFile(this.session, this.name, id, "ctl"), "kill\n", options.signal);
  }

  private file(name: AgentFile): string {
    return agentFile(this.session, this.name, name);
  }

  /** Where the chat ends now, in bytes (`offset`). */
  private async position(signal?: AbortSignal): Promise<number> {
    const path = this.file("offset");
    return this.count(path, await this.files.read(path, signal));
  }

  private count(path: string, text: string): number {
    const n = Number(text.trim());
    if (text.trim() === "" || !Number.isSafeInteger(n) || n < 0)
      throw new ReplyFormatError(path, text, "not a count");
    return n;
  }
}
