import { readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";

/**
 * The files that hide paths, read in this order in each directory: `.gitignore` as git reads it, and
 * `.ignore` as ripgrep and fd do, so that a user can hide files from the agent without touching git; coming
 * second, `.ignore` has the last word.
 */
const RULE_FILES = [".gitignore", ".ignore"];

/** One directory's rules; they match paths relative to that directory. */
interface DirectoryRules {
  dir: string;
  rules: Ignore;
}

/**
 * The `.gitignore` and `.ignore` files that apply under a search root, applied as git applies `.gitignore`:
 * a file's patterns are relative to its directory, a deeper file overrides a shallower one, and within a
 * file the last pattern that matches wins (so `!` re-includes).
 *
 * The files of the directories above the root count up to the top of its repository (the nearest directory
 * holding `.git`), as git reads them when run in a subdirectory, unless they exclude the root itself: a
 * directory the user names is searched, as ripgrep does, with only the rule files inside it.
 *
 * `ignore` matches one file's patterns; finding the files and combining them across directories is done
 * here, as neither it nor tinyglobby does that.
 */
export class IgnoreRules {
  /** The rules in force in each directory seen, by absolute path; shared while they are being read. */
  private readonly chains = new Map<string, Promise<readonly DirectoryRules[]>>();

  private constructor(private readonly top: string) {}

  /** The rules for a search under `root`, an absolute path. */
  static async under(root: string): Promise<IgnoreRules> {
    const repositoryTop = await findRepositoryTop(root);
    if (repositoryTop === undefined || repositoryTop === root) return new IgnoreRules(root);
    const fromTop = new IgnoreRules(repositoryTop);
    return (await fromTop.ignores(root, true)) ? new IgnoreRules(root) : fromTop;
  }

  /**
   * Whether the rules of the directories above `path` (absolute) exclude it. The walk asks only about the
   * entries of a directory it kept, so a file that excludes one of the path's directories was overridden by
   * a deeper one (`!build/`); `ignore` would answer for that directory, so such a file is not asked. (Git
   * would still apply its other patterns, say `*.map`, inside the re-included directory: a rare case let go.)
   */
  async ignores(path: string, isDirectory: boolean): Promise<boolean> {
    let ignored = false;
    for (const { dir, rules } of await this.chain(dirname(path))) {
      const relativePath = relative(dir, path);
      const parent = dirname(relativePath);
      if (parent !== "." && rules.test(`${parent}/`).ignored) continue;
      // A directory is tested with a trailing slash, which patterns such as `build/` require.
      const result = rules.test(`${relativePath}${isDirectory ? "/" : ""}`);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  /** The rules in force in `dir`: those of each directory from the top down to it, outermost first. */
  private chain(dir: string): Promise<readonly DirectoryRules[]> {
    let chain = this.chains.get(dir);
    if (!chain) {
      chain = this.readChain(dir);
      this.chains.set(dir, chain);
    }
    return chain;
  }

  private async readChain(dir: string): Promise<readonly DirectoryRules[]> {
    const atTop = dir === this.top || dirname(dir) === dir;
    const outer = atTop ? [] : await this.chain(dirname(dir));
    const rules = await readRules(dir);
    return rules ? [...outer, { dir, rules }] : outer;
  }
}

/** A directory's rules, or undefined when it has none (no rule file, or none it may read). */
async function readRules(dir: string): Promise<Ignore | undefined> {
  const texts = await Promise.all(
    RULE_FILES.map((name) => readFile(join(dir, name), "utf8").catch(() => "")),
  );
  const text = texts.join("\n");
  if (text.trim() === "") return undefined;
  // Case matters, as it does to git on Linux; relative paths are allowed so that an odd but legal name such
  // as `...` is tested rather than refused.
  return ignore({ ignorecase: false, allowRelativePaths: true }).add(text);
}

/** The nearest directory at or above `dir` that holds `.git` (a directory, or a worktree's file). */
async function findRepositoryTop(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = dirname(at)) {
    if (await stat(join(at, ".git")).catch(() => undefined)) return at;
    if (dirname(at) === at) return undefined;
  }
}
