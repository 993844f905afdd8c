import type { Fsys, NinepClient } from "@ollie/ninep";
import { Bypass } from "./bypass/bypass.js";
import { NoSuchSessionError, ReplyFormatError } from "./errors.js";
import {
  type BackendChecks,
  type BackendInfo,
  type ModelInfo,
  type ProfileInfo,
  parseBackendChecks,
  parseBackends,
  parseModels,
  parseProfiles,
  parseSessionIndex,
  parseStats,
  type SessionEntry,
} from "./formats/tables.js";
import { parseToolsrvStatus, type ToolsrvStatus } from "./formats/toolsrv-status.js";
import { NamespaceFiles } from "./namespace/files.js";
import {
  isSessionId,
  NEW_SESSION,
  peerFile,
  ROOT,
  SESSION_INDEX,
  SESSION_INDEX_WAIT,
} from "./namespace/paths.js";
import { Session } from "./session/session.js";
import { type SessionSpec, specText } from "./session/session-spec.js";
import { Watch } from "./streams/watch.js";

/**
 * A connection to olliesrv, attached as one principal (`connect` makes it): the sessions, the daemon's own
 * files, and `bypass/`. Everything goes through the namespace; nothing is cached, so each call reads what
 * olliesrv has now. Close it when done: what it opened goes with it.
 */
export class OllieClient {
  private readonly files: NamespaceFiles;
  /** Agents' requests to run something outside the sandbox, and the owner's decisions. */
  readonly bypass: Bypass;

  /** @internal Made by `connect`. */
  constructor(
    private readonly connection: NinepClient,
    fsys: Fsys,
    /** Where olliesrv was dialled. */
    readonly address: string,
    /** The principal this client is: the owner's user name, or an agent's `SESSION.AGENT`. */
    readonly uname: string,
  ) {
    this.files = new NamespaceFiles(fsys);
    this.bypass = new Bypass(this.files);
  }

  /** The sessions olliesrv keeps, oldest first. */
  async sessions(signal?: AbortSignal): Promise<SessionEntry[]> {
    return parseSessionIndex(await this.files.read(SESSION_INDEX, signal), SESSION_INDEX);
  }

  /**
   * Follows the session list (`session/idxwait`): a session made, killed, renamed or moved, or a main
   * agent's state changed. It resolves once the wait is open, and gives no value then: each `next()` waits
   * for the list to differ from what this watch last gave (at first, the list at the moment it resolved) and
   * answers the whole list as it is then, as `sessions()` would. For the list now, call `sessions()` after
   * it resolves — not before, or a change between the two is missed. Changes that come between two reads
   * come as one answer, and one undone before the read (a session made and killed) is none; the last is
   * never lost, since a read answers at once when the list already differs.
   */
  watchSessions(options: { signal?: AbortSignal } = {}): Promise<Watch<SessionEntry[]>> {
    return Watch.open(
      this.files,
      SESSION_INDEX_WAIT,
      (text) => parseSessionIndex(text, SESSION_INDEX_WAIT),
      options.signal,
    );
  }

  /**
   * Makes a session — from a spec object, or from `key=value` words as `session/new` takes them — and
   * resolves with it. A spec olliesrv refuses (an unknown profile, a directory an agent's child may not
   * use, a limit reached) is a RefusedError saying why.
   */
  async newSession(
    spec: SessionSpec | string = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<Session> {
    const id = await this.files.exchange(NEW_SESSION, specText(spec), options.signal);
    if (!isSessionId(id)) throw new ReplyFormatError(NEW_SESSION, id, "not a session id");
    return new Session(this.files, id);
  }

  /** The session `id` (a handle: making one reads nothing). Throws a TypeError for what is not an id. */
  session(id: string): Session {
    return new Session(this.files, id);
  }

  /**
   * The session that `given` names — its id, or its name in `session/idx` — as the index lists it; a
   * NoSuchSessionError when there is none.
   */
  async findSession(given: string, signal?: AbortSignal): Promise<SessionEntry> {
    const sessions = await this.sessions(signal);
    const found = isSessionId(given)
      ? sessions.find((s) => s.id === given)
      : sessions.find((s) => s.name === given);
    if (!found) throw new NoSuchSessionError(given);
    return found;
  }

  /**
   * Writes a prompt to another agent without waiting for its turn (`peer/NAME`): NAME is an agent's uname,
   * or a session's id or name (its main agent). Resolves with the prompt's number at that agent.
   */
  async peer(name: string, text: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const path = peerFile(name);
    const answer = await this.files.exchange(path, text, options.signal);
    const n = Number(answer);
    if (!Number.isSafeInteger(n) || n < 1) throw new ReplyFormatError(path, answer, "not a prompt's number");
    return n;
  }

  /** The agent profiles sessions may be made with: the user's first, then the shipped ones. */
  async profiles(signal?: AbortSignal): Promise<ProfileInfo[]> {
    return parseProfiles(await this.files.read(ROOT.profiles, signal));
  }

  /** The backends.conf profiles as olliesrv read them last. */
  async backends(signal?: AbortSignal): Promise<BackendInfo[]> {
    return parseBackends(await this.files.read(ROOT.backends, signal), ROOT.backends);
  }

  /**
   * Has olliesrv ask every backend for its models, with its own keys (5 s at most), and answers what each
   * said. The owner's alone.
   */
  async checkBackends(signal?: AbortSignal): Promise<BackendChecks> {
    return parseBackendChecks(await this.files.read(ROOT.backendsCheck, signal), ROOT.backendsCheck);
  }

  /** The default backend's models. */
  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    return parseModels(await this.files.read(ROOT.models, signal));
  }

  /** What the daemon holds, by name: sessions, agents, connections, fids, requests, heap-used, rss… */
  async stats(signal?: AbortSignal): Promise<Record<string, number>> {
    return parseStats(await this.files.read(ROOT.stats, signal));
  }

  /**
   * The toolsrv olliesrv started and restarts when it dies: up, restarting or down, since when, and how the
   * last one ended. Undefined when olliesrv was given a toolsrv (`--toolsrv`), which it does not watch.
   */
  async toolsrv(signal?: AbortSignal): Promise<ToolsrvStatus | undefined> {
    return parseToolsrvStatus(await this.files.read(ROOT.stats, signal));
  }

  /**
   * Has olliesrv read backends.conf and the agent profiles again now; a broken backends.conf is a
   * RefusedError naming its file and line (the backends in use stay). The owner's alone.
   */
  async reload(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.files.write(ROOT.ctl, "reload\n", options.signal);
  }

  /** Settles when the connection is gone: closed here, or by olliesrv (it stopped or restarted). */
  get closed(): Promise<void> {
    return this.connection.closed;
  }

  /** Hangs up: every request in flight, and every wait, fails. */
  close(): void {
    this.connection.close();
  }
}
