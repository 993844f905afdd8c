import { realpath, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CheckpointLocked, CheckpointsUnavailable, GitCommandFailed, UnknownCheckpoint } from "./errors.js";
import { type GitPlace, gitVersion, runGit } from "./git.js";
import { appendOwnerLog, checkpointRef, ownerName, readOwnerLog } from "./owner-log.js";
import { joinNul, splitNul } from "./raw-paths.js";
import { type RepoState, repoState } from "./repo-state.js";
import { planRewind } from "./rewind-plan.js";
import { ensureShadowRepo, shadowGitDir } from "./shadow-init.js";
import { changedFile, diffTrees } from "./tree-diff.js";
import {
  type Checkpoint,
  type CheckpointHistory,
  type CheckpointKind,
  type CheckpointLimits,
  DEFAULT_CHECKPOINT_LIMITS,
  type NotedFile,
  type Recorded,
  type Rewound,
} from "./types.js";
import { noteUnreadable, scanWorktree, type WorktreeScan } from "./worktree-scan.js";

export interface ShadowRepoOptions {
  /** The daemon's data directory: the shadow repository is kept under its `checkpoints/`. */
  dataDir: string;
  /** The directory whose states are recorded (a session's). */
  directory: string;
  limits?: Partial<CheckpointLimits>;
}

/** How `record` treats a directory as the owner's latest checkpoint has it. */
export interface RecordOptions {
  /**
   * Record it anyway, as a checkpoint of its own that reuses the latest one's commit (a ref and a line of
   * the log): each turn that writes has its own checkpoint, and its own place in the conversation.
   */
  evenIfUnchanged?: boolean;
}

/** What the caller says of a checkpoint, kept with it. */
export interface RecordInfo {
  turn?: number;
  label?: string;
  /** Where the turn began in the owner's conversation, for a rewind of the conversation too. */
  history?: CheckpointHistory;
}

/**
 * From this many files staged at once, new files are written into one pack rather than one file each
 * (git's bulk check-in, which `git update-index` uses from git 2.37): a first checkpoint of 10,000 files
 * takes a tenth of the disk.
 */
const PACK_FROM_FILES = 64;

/**
 * The checkpoints of one directory: its states, recorded in a shadow git repository kept under the
 * daemon's data directory (`checkpoints/<hash of the directory's realpath>/`, which names the directory in
 * its `directory` file) — never in the directory's own `.git`, which git, told where the shadow one is,
 * does not look at. Every session in the directory shares it; each owner (an agent, `sessionId/agentName`)
 * has its own numbered checkpoints, refs `refs/ollie/<owner>/<n>` and a log of JSON lines.
 *
 * It drives the `git` command rather than a JavaScript git: the shadow index is kept between checkpoints,
 * and with it git's stat cache, so a checkpoint of an unchanged 10,000-file tree costs one pass of lstat
 * and one walk of the directories, where a JavaScript implementation would read and hash every file; and
 * git honours the directory's `.gitignore` files as the user's own git does. Git runs in an environment
 * of its own (no user or system configuration, no hooks, no GIT_* variable of the daemon's), with settings
 * that store files byte for byte (see shadow-init.ts).
 *
 * Operations on one shadow repository run one at a time in this process, whichever ShadowRepo they came
 * through; git's lock files keep other processes out (CheckpointLocked).
 */
export class ShadowRepo {
  readonly #state: RepoState;
  readonly #place: GitPlace;

  private constructor(
    /** The directory's realpath. */
    readonly directory: string,
    /** The shadow git directory. */
    readonly gitDir: string,
    readonly limits: CheckpointLimits,
    /** Whether this git writes a bulk of new files into one pack. */
    private readonly packs: boolean,
  ) {
    this.#state = repoState(gitDir);
    this.#place = { workTree: directory, gitDir };
  }

  /**
   * Opens the checkpoints of `directory`, making its shadow repository if it has none. Rejects with
   * CheckpointsUnavailable when `git` is missing or older than 2.30, or the directory is not one.
   */
  static async open(options: ShadowRepoOptions): Promise<ShadowRepo> {
    const directory = await realDirectory(options.directory);
    const [major, minor] = await gitVersion(directory);
    const gitDir = shadowGitDir(resolve(options.dataDir), directory);
    const limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...options.limits };
    await repoState(gitDir).queue.run(() => ensureShadowRepo(gitDir, directory));
    return new ShadowRepo(directory, gitDir, limits, major > 2 || (major === 2 && minor >= 37));
  }

  /**
   * Records the directory as it is now as `owner`'s next checkpoint — unless it is as the owner's latest
   * checkpoint has it: then nothing is recorded and that checkpoint is returned (`created: false`), or,
   * with `evenIfUnchanged`, a checkpoint reusing its commit is.
   */
  async record(owner: string, info: RecordInfo = {}, options: RecordOptions = {}): Promise<Recorded> {
    ownerName(owner);
    return this.#state.queue.run(async () => {
      const { tree, noted } = await this.#stage();
      const latest = await this.#latest(owner);
      if (latest?.tree === tree && !options.evenIfUnchanged) return { created: false, sameAs: latest, noted };
      return {
        created: true,
        checkpoint: await this.#checkpoint(owner, tree, noted, { kind: "turn", ...info }),
      };
    });
  }

  /**
   * Resolves when every operation asked for so far is done: what a daemon waits for before it exits, and
   * what reads the shadow repository itself waits for first.
   */
  async idle(): Promise<void> {
    return this.#state.queue.run(async () => {});
  }

  /**
   * `owner`'s checkpoints, oldest (1) first. It waits for no operation: a checkpoint being recorded is
   * listed once its line is written.
   */
  async list(owner: string): Promise<Checkpoint[]> {
    ownerName(owner);
    return readOwnerLog(this.gitDir, owner);
  }

  /**
   * Makes the directory as `owner`'s checkpoint `n` has it: files made since removed (and directories they
   * leave empty), removed ones restored, changed ones restored byte for byte, with their modes, and links.
   * The state it replaces is recorded first, as a checkpoint of kind `before rewind`, so that rewinding to
   * that one undoes this. Ignored and noted files are left as they are. Rejects with UnknownCheckpoint when
   * the owner has no checkpoint `n`.
   */
  async rewind(owner: string, n: number): Promise<Rewound> {
    ownerName(owner);
    return this.#state.queue.run(async () => {
      const target = (await readOwnerLog(this.gitDir, owner)).find((checkpoint) => checkpoint.n === n);
      if (!target) throw new UnknownCheckpoint(this.directory, owner, n);
      const { tree, noted } = await this.#stage();
      if (tree === target.tree) return { to: target, before: undefined, files: [], untouched: [] };
      const before = await this.#checkpoint(owner, tree, noted, { kind: "before rewind", rewindTo: n });
      const plan = await planRewind(
        this.directory,
        await diffTrees(this.#place, tree, target.tree),
        target.noted,
      );
      const goal =
        plan.indexInfo.length > 0 ? await this.#treeWith(target.tree, plan.indexInfo) : target.tree;
      this.#state.indexTree = undefined;
      // The index holds the current state, so git changes exactly the paths that differ from `goal`.
      await runGit(this.#place, ["read-tree", "-u", "--reset", goal], { private: true });
      this.#state.indexTree = goal;
      return { to: target, before, files: plan.files, untouched: plan.untouched };
    });
  }

  /**
   * Brings the shadow index to the directory's state (under the limits) and resolves with its tree: one
   * `git status`, and when it reports changes, `git update-index` of those paths alone and `git write-tree`
   * (which rehashes only the directories that changed).
   */
  async #stage(): Promise<{ tree: string; noted: NotedFile[] }> {
    const state = this.#state;
    const known = state.indexTree;
    state.indexTree = undefined;
    const scan = await scanWorktree(this.#place, this.limits);
    let tree = known;
    if (
      tree === undefined ||
      scan.stage.length > 0 ||
      scan.forceRemove.length > 0 ||
      scan.ignoreRulesChanged
    ) {
      if (scan.stage.length > 0) await this.#updateIndex(scan);
      const forceRemove = [...scan.forceRemove];
      // Files the index holds that a changed .gitignore now ignores leave it: ignored files are not stored.
      if (scan.ignoreRulesChanged)
        forceRemove.push(
          ...splitNul(
            await runGit(this.#place, ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"]),
          ),
        );
      if (forceRemove.length > 0)
        await runGit(this.#place, ["update-index", "-z", "--force-remove", "--stdin"], {
          input: joinNul(forceRemove),
        });
      tree = (await runGit(this.#place, ["write-tree"])).toString("latin1").trim();
    }
    state.indexTree = tree;
    return { tree, noted: scan.noted };
  }

  /** Stages `scan.stage`; a file git may not read is noted instead, and the rest staged. */
  async #updateIndex(scan: WorktreeScan): Promise<void> {
    const update = () =>
      runGit(this.#place, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], {
        input: joinNul(scan.stage),
        config: this.packs && scan.stage.length >= PACK_FROM_FILES ? ["core.bigFileThreshold=1"] : [],
      });
    try {
      await update();
    } catch (error) {
      const retry =
        error instanceof GitCommandFailed &&
        !(error instanceof CheckpointLocked) &&
        (await noteUnreadable(this.directory, scan));
      if (!retry) throw error;
      if (scan.stage.length > 0) await update();
    }
  }

  /** `owner`'s latest checkpoint, null when it has none. */
  async #latest(owner: string): Promise<Checkpoint | null> {
    let latest = this.#state.latest.get(owner);
    if (latest === undefined) {
      latest = (await readOwnerLog(this.gitDir, owner)).at(-1) ?? null;
      this.#state.latest.set(owner, latest);
    }
    return latest;
  }

  /** Records `tree` as `owner`'s next checkpoint: its commit, its ref, its line in the owner's log. */
  async #checkpoint(
    owner: string,
    tree: string,
    noted: NotedFile[],
    about: { kind: CheckpointKind; rewindTo?: number } & RecordInfo,
  ): Promise<Checkpoint> {
    const latest = await this.#latest(owner);
    const n = (latest?.n ?? 0) + 1;
    // The changes and the commit are independent: git works out both at once.
    const [changes, commit] = await Promise.all([
      latest ? diffTrees(this.#place, latest.tree, tree) : [],
      this.#commit(owner, n, tree, latest?.tree === tree ? latest.commit : undefined, about.kind),
    ]);
    const files = changes.map(changedFile);
    const checkpoint: Checkpoint = {
      n,
      owner,
      commit,
      tree,
      time: new Date().toISOString(),
      ...about,
      files,
      noted,
    };
    await appendOwnerLog(this.gitDir, checkpoint);
    this.#state.latest.set(owner, checkpoint);
    return checkpoint;
  }

  /**
   * Makes a commit of `tree` (or takes `reuse`, a commit of it already) and points checkpoint `n`'s ref and
   * HEAD at it — HEAD following the latest checkpoint so that `git status` has little to say of the index.
   * No parent: each checkpoint stands alone, so that dropping a ref lets gc drop what only it kept.
   */
  async #commit(owner: string, n: number, tree: string, reuse: string | undefined, kind: CheckpointKind) {
    const commit =
      reuse ??
      (await runGit(this.#place, ["commit-tree", tree, "-m", `${owner} checkpoint ${n} (${kind})`]))
        .toString("latin1")
        .trim();
    await runGit(this.#place, ["update-ref", "--stdin"], {
      input: `update ${checkpointRef(owner, n)} ${commit}\noption no-deref\nupdate HEAD ${commit}\n`,
    });
    return commit;
  }

  /** The tree of `base` changed by `indexInfo` lines, made in an index of its own. */
  async #treeWith(base: string, indexInfo: string[]): Promise<string> {
    const place = { ...this.#place, indexFile: join(this.gitDir, `index.rewind-${process.pid}`) };
    try {
      await runGit(place, ["read-tree", base]);
      await runGit(place, ["update-index", "-z", "--index-info"], { input: joinNul(indexInfo) });
      return (await runGit(place, ["write-tree"])).toString("latin1").trim();
    } finally {
      await rm(place.indexFile, { force: true });
    }
  }
}

/** The realpath of `directory`, which must be one; CheckpointsUnavailable otherwise. */
async function realDirectory(directory: string): Promise<string> {
  try {
    const real = await realpath(directory);
    if (!(await stat(real)).isDirectory())
      throw new CheckpointsUnavailable(directory, "it is not a directory");
    return real;
  } catch (error) {
    if (error instanceof CheckpointsUnavailable) throw error;
    throw new CheckpointsUnavailable(directory, `it cannot be opened (${(error as Error).message})`, {
      cause: error,
    });
  }
}
