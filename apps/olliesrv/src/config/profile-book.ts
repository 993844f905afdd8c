import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentConfig } from "@ollie/agent-core/config";
import { checkedProfile, findIn } from "./profiles.js";

/** A profile as an agent is made from it: its config and the directory its file is in. */
export interface BookedProfile {
  config: AgentConfig;
  /** Where `NAME.json` was found (the user's agents/ or the shipped one): hooks and prompts resolve there. */
  dir: string;
  file: string;
}

/**
 * The agent profiles, read again whenever one is asked for, that remember the last good version of each
 * file: a profile broken after olliesrv started (an edit saved half done) is logged, naming the file and the
 * line or key, and agents are made from the version before until it is fixed. A profile that was never good
 * since the start is refused, with the same words, as it always was. A deleted file is gone: the shipped
 * profile of that name, if there is one, takes its place.
 */
export class ProfileBook {
  /** The last good version of each profile file, with the text it came from. */
  private readonly good = new Map<string, { text: string; profile: BookedProfile }>();
  /** The problem last logged for each broken file, so that it is said once, not at every use. */
  private readonly said = new Map<string, string>();

  constructor(
    readonly dirs: readonly string[],
    private readonly ollieDir: string,
    private readonly warn: (line: string) => void,
    private readonly info: (line: string) => void = () => {},
  ) {}

  /**
   * The profile `name` as agents are made from it now: the file as it is, or — when it is broken and was
   * good before — as it was. Throws what is wrong (file, and line or key) when there is no good version.
   */
  async get(name: string): Promise<BookedProfile> {
    const dir = await findIn(this.dirs, `${name}.json`);
    if (!dir) throw new Error(`no agent profile '${name}' (looked in ${this.dirs.join(", ")})`);
    const file = join(dir, `${name}.json`);
    const text = await readFile(file, "utf8").catch(() => undefined);
    const kept = this.good.get(file);
    if (kept && text === kept.text) return kept.profile;
    try {
      const config = await checkedProfile([dir], name, this.ollieDir);
      const profile = { config, dir, file };
      if (text !== undefined) this.good.set(file, { text, profile });
      if (kept) this.info(`${file}: read again`);
      this.said.delete(file);
      return profile;
    } catch (error) {
      // agent-core's errors place the problem in the file (FILE:LINE:COLUMN: KEY: …) already.
      const problem = (error as Error).message;
      if (!kept) throw error;
      if (this.said.get(file) !== problem) {
        this.said.set(file, problem);
        this.warn(`${problem}; agents are made from the version before until it is fixed`);
      }
      return kept.profile;
    }
  }

  /**
   * Every profile by name (the user's directory first: its file hides a shipped one of the same name), with
   * its description, or what is wrong with it when it cannot be used.
   */
  async list(): Promise<Array<{ name: string; description?: string; problem?: string }>> {
    const names = new Set<string>();
    for (const dir of this.dirs) {
      const files = await readdir(dir).catch(() => [] as string[]);
      for (const f of files)
        if (f.endsWith(".json") && !f.startsWith(".")) names.add(f.slice(0, -".json".length));
    }
    return Promise.all(
      [...names].sort().map((name) =>
        this.get(name).then(
          ({ config }) => ({ name, ...(config.description && { description: config.description }) }),
          (error: unknown) => ({ name, problem: (error as Error).message }),
        ),
      ),
    );
  }

  /**
   * Reads every profile of the user's directory (the first of `dirs`), so that each good one is remembered
   * and each broken one is logged now rather than when someone uses it.
   */
  async check(): Promise<void> {
    const own = this.dirs[0];
    if (own === undefined) return;
    const names = await readdir(own).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) {
      const profile = name.slice(0, -".json".length);
      await this.get(profile).catch((error: unknown) => {
        const problem = (error as Error).message;
        const file = join(own, name);
        if (this.said.get(file) === problem) return;
        this.said.set(file, problem);
        this.warn(`${problem}; sessions with this profile are refused until it is fixed`);
      });
    }
  }
}
