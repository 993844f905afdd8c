import { AgentCheckpoints, type CheckpointedSession } from "./agent-checkpoints.js";
import { ShadowRepo } from "./shadow-repo.js";
import type { CheckpointLimits } from "./types.js";

/**
 * The daemon's checkpoints: one shadow repository per directory, opened at its first use and kept (a
 * failure to open is not kept: the next use tries again, once `git` is there), and each agent's view.
 */
export class CheckpointRepos {
  readonly #repos = new Map<string, Promise<ShadowRepo>>();
  readonly #agents = new Map<string, AgentCheckpoints>();

  constructor(
    private readonly dataDir: string,
    private readonly limits: Partial<CheckpointLimits> = {},
  ) {}

  /** The checkpoints of `directory`. */
  open(directory: string): Promise<ShadowRepo> {
    let repo = this.#repos.get(directory);
    if (!repo) {
      repo = ShadowRepo.open({ dataDir: this.dataDir, directory, limits: this.limits });
      this.#repos.set(directory, repo);
      repo.catch(() => this.#repos.delete(directory));
    }
    return repo;
  }

  /** The checkpoints of agent `name` of `session`. */
  forAgent(session: CheckpointedSession, name: string): AgentCheckpoints {
    const key = `${session.id}/${name}`;
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new AgentCheckpoints(session, name, (directory) => this.open(directory));
      this.#agents.set(key, agent);
    }
    return agent;
  }

  /** Resolves once every checkpoint and rewind under way has finished. */
  async idle(): Promise<void> {
    await Promise.all(
      [...this.#repos.values()].map((repo) =>
        repo.then(
          (r) => r.idle(),
          () => undefined,
        ),
      ),
    );
  }

  /** Forgets the agents of a session killed (its checkpoints stay, for the directory's other sessions). */
  forgetSession(id: string): void {
    for (const key of this.#agents.keys()) if (key.startsWith(`${id}/`)) this.#agents.delete(key);
  }
}
