import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";

/** Temporary directories made by a test file, removed by `removeAll` (in an afterAll/afterEach). */
export class Scratch {
  readonly #dirs: string[] = [];

  dir(prefix = "ckpt-"): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.#dirs.push(dir);
    return dir;
  }

  removeAll(): void {
    for (const dir of this.#dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a path of a tree is: its kind, whether it is executable (the one permission bit git keeps: a file a
 * rewind writes is the daemon user's alone, 0600 or 0700), and content (the bytes, hex) or link target.
 */
export interface Entry {
  kind: "file" | "link" | "dir" | "other";
  mode: number;
  content?: string;
}

/**
 * Every path under `root` (relative, sorted), walked with lstat: links are read, never followed. `skip`
 * leaves out top-level names (such as `.git`) and all below them.
 */
export function snapshot(root: string, skip: string[] = []): Record<string, Entry> {
  const entries: Record<string, Entry> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (!rel && skip.includes(name)) continue;
      const full = join(root, path);
      const st = lstatSync(full);
      const mode = st.isFile() ? st.mode & 0o100 : 0;
      if (st.isSymbolicLink()) entries[path] = { kind: "link", mode: 0, content: readlinkSync(full) };
      else if (st.isDirectory()) {
        entries[path] = { kind: "dir", mode: 0 };
        walk(path);
      } else if (st.isFile())
        entries[path] = { kind: "file", mode, content: readFileSync(full).toString("hex") };
      // A FIFO, a socket: never opened (a FIFO's open would wait for a writer).
      else entries[path] = { kind: "other", mode };
    }
  };
  walk("");
  return entries;
}

/** A digest of every file under `root` with its mode: equal digests, equal trees. */
export function treeHash(root: string): string {
  return createHash("sha256")
    .update(JSON.stringify(snapshot(root)))
    .digest("hex");
}

/** Writes files (string or bytes) and links (`{ link: target }`) under `root`, making directories. */
export function write(root: string, files: Record<string, string | Buffer | { link: string }>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    rmSync(full, { recursive: true, force: true });
    if (typeof content === "object" && "link" in content) symlinkSync(content.link, full);
    else writeFileSync(full, content);
  }
}

/**
 * `git ARGS` in `cwd` as a user would run it, but with no configuration of this machine's user and no
 * index written where git's lock is optional (`git status` then changes nothing).
 */
export async function userGit(cwd: string, args: string[]): Promise<string> {
  const result = await execa("git", ["-c", "user.name=User", "-c", "user.email=user@example.com", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_OPTIONAL_LOCKS: "0",
      LC_ALL: "C",
    },
    extendEnv: false,
  });
  return result.stdout;
}

/** A shadow repository as the helpers below look at it. */
interface Shadow {
  gitDir: string;
  idle(): Promise<void>;
}

/**
 * `git ARGS` on a shadow repository (no work tree), to look at what it holds — once its operations are
 * done and its refs written.
 */
export async function shadowGit(repo: Shadow, args: string[]): Promise<string> {
  await repo.idle();
  const result = await execa("git", ["--git-dir", repo.gitDir, ...args], {
    env: { PATH: process.env.PATH, HOME: repo.gitDir, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
    extendEnv: false,
  });
  return result.stdout;
}

/** The refs, objects and log lines a shadow repository holds: what a record that records nothing keeps. */
export async function shadowCounts(repo: Shadow): Promise<{ refs: number; objects: string; log: string[] }> {
  const refs = await shadowGit(repo, ["for-each-ref", "refs/ollie"]);
  const objects = await shadowGit(repo, ["count-objects", "-v"]);
  const owners = join(repo.gitDir, "owners");
  const log = readdirSync(owners)
    .sort()
    .map((name) => readFileSync(join(owners, name), "utf8"));
  return { refs: refs.split("\n").filter(Boolean).length, objects, log };
}
