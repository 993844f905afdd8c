import { readFile, stat } from "node:fs/promises";
import { arch, release, type } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Where the agent works, as the preamble's environment section tells the model. */
export interface EnvironmentFacts {
  cwd: string;
  /** The kernel, its release and the machine: `Linux 6.8.0 (x64)`. */
  os: string;
  /** Today, in local time: `2025-06-01 (Sunday)`. */
  date: string;
  /** The branch checked out when `cwd` is in a git work tree; `detached HEAD at 1a2b3c4` when none is. */
  git?: string;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Gathers the facts for `cwd` now. Nothing is run: the git branch is read from the repository's HEAD. */
export async function gatherEnvironment(cwd: string, now = new Date()): Promise<EnvironmentFacts> {
  const dir = resolve(cwd);
  const git = await gitHead(dir);
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  return {
    cwd: dir,
    os: `${type()} ${release()} (${arch()})`,
    date: `${day} (${WEEKDAYS[now.getDay()]})`,
    ...(git !== undefined && { git }),
  };
}

/** The environment section: the facts, and how many tools the model can call. */
export function renderEnvironment(facts: EnvironmentFacts, tools: number): string {
  const lines = [
    `- Working directory: ${facts.cwd}`,
    `- OS: ${facts.os}`,
    `- Date: ${facts.date}`,
    ...(facts.git === undefined
      ? []
      : [facts.git.startsWith("detached ") ? `- Git: ${facts.git}` : `- Git branch: ${facts.git}`]),
    `- Tools available: ${tools}`,
  ];
  return `## Environment\n\n${lines.join("\n")}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * What HEAD of the work tree holding `dir` points at: a branch name, `detached HEAD at SHORTSHA`, or undefined
 * outside a repository (or when its HEAD cannot be read). A `.git` file (a linked work tree, a submodule)
 * is followed to the directory it names.
 */
async function gitHead(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = dirname(at)) {
    const gitDir = await gitDirIn(at);
    if (gitDir !== undefined) return readHead(gitDir);
    if (dirname(at) === at) return undefined;
  }
}

async function gitDirIn(dir: string): Promise<string | undefined> {
  const dotGit = join(dir, ".git");
  const info = await stat(dotGit).catch(() => undefined);
  if (!info) return undefined;
  if (info.isDirectory()) return dotGit;
  const text = await readFile(dotGit, "utf8").catch(() => "");
  const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (named === undefined) return undefined;
  return isAbsolute(named) ? named : resolve(dir, named);
}

async function readHead(gitDir: string): Promise<string | undefined> {
  const head = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
  const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
  if (ref !== undefined) return ref.replace(/^refs\/heads\//, "");
  if (/^[0-9a-f]{40,64}$/.test(head)) return `detached HEAD at ${head.slice(0, 7)}`;
  return undefined;
}
