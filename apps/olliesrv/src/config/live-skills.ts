import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { RELOAD_DEBOUNCE_MS } from "./live-config.js";
import { loadSkills, type Skill } from "./skills.js";

/**
 * The skills, read again while olliesrv runs, as the profiles and backends.conf are: when a file in the
 * user's skills directory (the first of `dirs`) is added, changed or removed (watched, debounced; the
 * directory may be made or removed later), and when `reload` is called (the root `ctl`'s `reload`). Each
 * read that changes something is logged and told to the listeners, with the skills there were. A broken
 * skill file is logged once, not at every read, and skipped.
 */
export class LiveSkills {
  private listeners: Array<(before: ReadonlyMap<string, Skill>) => void> = [];
  private watchers: { parent?: FSWatcher; dir?: FSWatcher } = {};
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private closed = false;
  /** The problems with skill files last logged: said again only once they change. */
  private said = new Set<string>();

  private constructor(
    private readonly dirs: readonly string[],
    private readonly log: { info(line: string): void; warn(line: string): void },
    private skills: ReadonlyMap<string, Skill>,
  ) {}

  /** Reads the skills in `dirs` (the user's first: a user skill hides a shipped one of the same name). */
  static async load(
    dirs: readonly string[],
    log: { info(line: string): void; warn(line: string): void },
  ): Promise<LiveSkills> {
    const live = new LiveSkills(dirs, log, new Map());
    live.skills = await live.read();
    return live;
  }

  /** The skills as they are now. */
  get current(): ReadonlyMap<string, Skill> {
    return this.skills;
  }

  /** Calls `listener` with the skills there were, each time a read finds them changed. */
  onChange(listener: (before: ReadonlyMap<string, Skill>) => void): void {
    this.listeners.push(listener);
  }

  /** Reads the skills again now (one read at a time); resolves once the listeners have been told. */
  reload(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.reading = this.reading
      .then(async () => {
        const next = await this.read();
        if (this.closed || sameSkills(this.skills, next)) return;
        const before = this.skills;
        this.skills = next;
        this.log.info(`read the skills again: ${[...next.keys()].join(", ") || "none"}`);
        for (const listener of this.listeners) listener(before);
      })
      .catch((error: unknown) => {
        // A directory that cannot be read: the skills stay as they were.
        this.log.warn(`the skills could not be read again: ${(error as Error).message}`);
      });
    return this.reading;
  }

  /** Watches the user's skills directory, and its parent for the directory itself coming and going. */
  watch(): void {
    const dir = this.dirs[0];
    if (this.closed || dir === undefined) return;
    this.watchers.parent ??= this.tryWatch(dirname(dir), (name) => {
      if (name !== null && name !== basename(dir)) return;
      this.rewatch(dir);
      this.schedule();
    });
    this.rewatch(dir);
  }

  /** Stops watching and reading; resolves once a read under way is over. */
  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of Object.values(this.watchers)) watcher?.close();
    this.watchers = {};
    return this.reading;
  }

  private async read(): Promise<ReadonlyMap<string, Skill>> {
    const problems = new Set<string>();
    const skills = await loadSkills(this.dirs, (line) => problems.add(line));
    for (const problem of problems) if (!this.said.has(problem)) this.log.warn(problem);
    this.said = problems;
    return skills;
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS);
    this.timer.unref();
  }

  private rewatch(dir: string): void {
    if (this.closed) return;
    this.watchers.dir?.close();
    const watcher = this.tryWatch(dir, (name) => {
      if (name === null || name.endsWith(".md")) this.schedule();
    });
    if (watcher) this.watchers.dir = watcher;
    else delete this.watchers.dir;
  }

  private tryWatch(path: string, changed: (name: string | null) => void): FSWatcher | undefined {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => changed(name));
      // A watched directory that goes away ends its watch; the parent's watch starts another.
      watcher.on("error", () => watcher.close());
      return watcher;
    } catch {
      return undefined;
    }
  }
}

function sameSkills(a: ReadonlyMap<string, Skill>, b: ReadonlyMap<string, Skill>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, skill] of a) if (!sameSkill(skill, b.get(name))) return false;
  return true;
}

/** Whether a skill reads the same (its name, description, text and file). */
export function sameSkill(a: Skill | undefined, b: Skill | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.description === b.description && a.text === b.text && a.file === b.file;
}
