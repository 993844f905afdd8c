import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
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

/**
 * Gathers the facts for `cwd` now. Nothing is run: the git branch is read from the repository's HEAD. The
 * files read may be an agent's making (a `.git` file naming any directory), so only small regular files are
 * read, and of HEAD only a ref name or a commit id is ever shown.
 */
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
  const text = await readSmall(dotGit);
  const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (named === undefined) return undefined;
  return isAbsolute(named) ? named : resolve(dir, named);
}

async function readHead(gitDir: string): Promise<string | undefined> {
  const head = (await readSmall(join(gitDir, "HEAD"))).trim();
  const ref = /^ref:\s*(refs\/[^\s~^:?*[\\]{1,250})$/.exec(head)?.[1];
  if (ref !== undefined) return ref.replace(/^refs\/heads\//, "");
  if (/^[0-9a-f]{40,64}$/.test(head)) return `detached HEAD at ${head.slice(0, 7)}`;
  return undefined;
}

/** A regular file of at most 4 KiB, else "": a FIFO or a device named by a planted link must not block us. */
async function readSmall(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch(
    () => undefined,
  );
  if (!handle) return "";
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > 4096) return "";
    const bytes = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    return bytes.subarray(0, bytesRead).toString("utf8");
  } catch {
    return "";
  } finally {
    await handle.close();
  }
}
