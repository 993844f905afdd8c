import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BackendPool, type Profile, parseBackendsConf } from "@ollie/backends";
import type { Logger } from "@ollie/log";
import type { OlliePaths } from "../paths.js";
import { backendSecrets } from "./backend-secrets.js";
import { ProfileBook } from "./profile-book.js";

/** How long after the last change in the configuration directory it is read again (an editor's save is several). */
export const RELOAD_DEBOUNCE_MS = 150;

/**
 * The configuration olliesrv reads again while it runs: backends.conf (the user's, else the shipped one) and
 * the agent profiles. A change is picked up when the files change (watched, debounced) or when `reload` is
 * called (the root `ctl`'s `reload`, which `ollie init` writes). A broken backends.conf on reload is logged,
 * naming its file and line, and the profiles in use stay; at start it is an error, as before. Each new set
 * of profiles adds its credentials to the log's secrets, and a profile whose address or key source changed
 * (or a new one that runs a key_cmd) is logged as a warning: that is where keys go, and what olliesrv runs.
 */
export class LiveConfig {
  readonly profiles: ProfileBook;
  private pool: BackendPool;
  /** The text the profiles in use came from; a change event that leaves it as it was changes nothing. */
  private text: string;
  private readonly listeners: Array<(old: BackendPool) => void> = [];
  private watchers: { dir?: FSWatcher; agents?: FSWatcher; file?: FSWatcher } = {};
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private closed = false;
  private watching = false;
  /** What is wrong with backends.conf, as last logged: said once, however often the broken file is read. */
  private problem: string | undefined;

  private constructor(
    private readonly paths: OlliePaths,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv,
    loaded: { pool: BackendPool; text: string },
  ) {
    this.pool = loaded.pool;
    this.text = loaded.text;
    this.profiles = new ProfileBook(
      [join(paths.config, "agents"), join(paths.defaults, "agents")],
      paths.config,
      log.warn,
      log.info,
    );
    for (const secret of backendSecrets(this.pool.conf, env)) log.addSecret(secret);
  }

  /** Reads the configuration; throws what is wrong with a broken backends.conf (file, line, problem). */
  static async load(paths: OlliePaths, log: Logger, env: NodeJS.ProcessEnv = process.env) {
    const config = new LiveConfig(paths, log, env, await readBackends(paths, env, log.warn));
    await config.profiles.check();
    return config;
  }

  /** The user's backends.conf (whether or not it exists): where people configure backends. */
  get userFile(): string {
    return join(this.paths.config, "backends.conf");
  }

  /** The backend profiles in use now. */
  get backends(): BackendPool {
    return this.pool;
  }

  /** Calls `listener` with the profiles that were in use, each time a changed backends.conf is taken. */
  onBackendsChange(listener: (old: BackendPool) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Reads backends.conf and the profiles again now. Rejects with what is wrong with a broken backends.conf
   * (which is also logged; the profiles in use stay), and once closed.
   */
  reload(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("olliesrv is stopping: it reads no configuration now"));
    const next = this.reading.then(() => this.read());
    this.reading = next.catch(() => undefined);
    return next;
  }

  /** Watches the configuration directory (and agents/ in it, and backends.conf itself) for changes. */
  watch(): void {
    if (this.closed) return;
    this.watching = true;
    this.watchers.dir ??= this.tryWatch(this.paths.config, (name) => {
      if (name === "agents") this.rewatch("agents");
      if (name === null || name === "agents" || name === "backends.conf") this.schedule();
    });
    this.rewatch("agents");
    this.rewatch("file");
  }

  /**
   * Stops watching and reading. A reading in progress changes nothing any more (nobody is told of it); the
   * promise returned settles when it is over, for a shutdown to wait on.
   */
  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of Object.values(this.watchers)) watcher?.close();
    this.watchers = {};
    return this.reading;
  }

  private async read(): Promise<void> {
    await this.profiles.check();
    let loaded: { pool: BackendPool; text: string };
    try {
      loaded = await readBackends(this.paths, this.env, this.log.warn);
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== this.problem)
        this.log.warn(`${problem}; the backends stay as they were until it is fixed`);
      this.problem = problem;
      throw new Error(`${problem} (olliesrv keeps the backends it had)`);
    } finally {
      // An editor that replaced the file (renamed a new one over it) ended the watch on the old one.
      if (this.watching) this.rewatch("file");
    }
    this.problem = undefined;
    if (this.closed) return;
    if (loaded.text === this.text && loaded.pool.conf.file === this.pool.conf.file) return;
    const old = this.pool;
    for (const secret of backendSecrets(loaded.pool.conf, this.env)) this.log.addSecret(secret);
    this.pool = loaded.pool;
    this.text = loaded.text;
    const conf = loaded.pool.conf;
    this.log.info(
      `read ${conf.file}: ${[...conf.profiles.keys()].join(", ") || "no profiles"}; default backend: ${conf.defaultProfile ?? "none"}`,
    );
    for (const profile of conf.profiles.values()) {
      const changed = trustChanges(old.conf.profiles.get(profile.name), profile);
      if (changed)
        this.log.warn(
          `${conf.file}: [${profile.name}] ${changed}: olliesrv uses it from now on (if you did not make this change, something else wrote the file)`,
        );
    }
    for (const listener of this.listeners) listener(old);
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.reload().catch(() => undefined);
    }, RELOAD_DEBOUNCE_MS);
    this.timer.unref();
  }

  /** (Re)starts the watch on agents/ or on backends.conf itself, which may not exist (yet). */
  private rewatch(which: "agents" | "file"): void {
    if (this.closed || !this.watching) return;
    this.watchers[which]?.close();
    const path = which === "agents" ? join(this.paths.config, "agents") : this.userFile;
    const watcher = this.tryWatch(path, (name) => {
      if (which === "file" || name === null || name.endsWith(".json")) this.schedule();
    });
    if (watcher) this.watchers[which] = watcher;
    else delete this.watchers[which];
  }

  private tryWatch(path: string, changed: (name: string | null) => void): FSWatcher | undefined {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => changed(name));
      // A watched directory or file that goes away ends its watch; what watches its parent starts another.
      watcher.on("error", () => watcher.close());
      return watcher;
    } catch {
      return undefined;
    }
  }
}

/**
 * What changed in where a profile sends its requests and where its key comes from, in words, or undefined
 * when neither did (a new profile counts when it runs a key_cmd).
 */
function trustChanges(was: Profile | undefined, now: Profile): string | undefined {
  const source = (p: Profile) => {
    const c = p.credential;
    if (c.kind === "none") return "no key";
    if (c.kind === "literal") return "a key in the file";
    return c.kind === "env" ? `$${c.variable}` : `the key_cmd \`${c.command}\``;
  };
  if (!was) return now.credential.kind === "command" ? `is new, and runs ${source(now)}` : undefined;
  const parts: string[] = [];
  const url = (p: Profile) => p.url ?? "its provider's own address";
  if (url(was) !== url(now)) parts.push(`sends its requests to ${url(now)} (was ${url(was)})`);
  const keyWas = source(was);
  const keyNow = source(now);
  const sameLiteral =
    was.credential.kind !== "literal" ||
    now.credential.kind !== "literal" ||
    was.credential.value.reveal() === now.credential.value.reveal();
  if (keyWas !== keyNow || !sameLiteral)
    parts.push(
      `takes its key from ${keyNow === keyWas ? "another key in the file" : keyNow} (was ${keyWas})`,
    );
  return parts.length > 0 ? parts.join(", and ") : undefined;
}

/**
 * backends.conf as olliesrv uses it: the user's, or the shipped one (Ollama on localhost) when there is none.
 * `onWarning` hears of request settings a backend had to change (temperature with thinking, say).
 */
export async function readBackends(
  paths: OlliePaths,
  env: NodeJS.ProcessEnv = process.env,
  onWarning?: (message: string) => void,
) {
  for (const file of [join(paths.config, "backends.conf"), join(paths.defaults, "backends.conf")]) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new Error(`${file}: ${(error as Error).message}`);
    }
    return { pool: new BackendPool(parseBackendsConf(text, file), env, onWarning), text };
  }
  throw new Error(`no backends.conf in ${paths.config} or ${paths.defaults}`);
}
