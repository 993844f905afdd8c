import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { MONOREPO } from "./pack-workspace.js";

/** An empty npm project outside the monorepo, and an environment that knows nothing of the workspace. */
export interface ConsumerProject {
  dir: string;
  /** HOME, XDG directories and a PATH with node and the system's tools only (no workspace binaries). */
  env: Record<string, string>;
  /** The installed binary `name` (node_modules/.bin/NAME). */
  bin(name: string): string;
}

const NPM_CLI = realpathSync(join(dirname(process.execPath), "npm"));

export function consumerEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CACHE_HOME: join(dir, "cache"),
    XDG_STATE_HOME: join(dir, "state"),
    NAMESPACE: join(dir, "ns"),
    TMPDIR: join(dir, "tmp"),
    npm_config_cache: join(tmpdir(), "ollie-test-npm-cache"),
  };
  for (const key of [
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "TMPDIR",
  ])
    mkdirSync(env[key]!, { recursive: true });
  return env;
}

/** The version of a tool the workspace pins in its root package.json (one source for both). */
const pinned = (name: string): string =>
  JSON.parse(readFileSync(join(MONOREPO, "package.json"), "utf8")).devDependencies[name];

/**
 * Installs the tarballs with plain npm into a fresh project, with TypeScript (at the workspace's version) to
 * type-check a consumer. Dependencies outside the workspace come from the registry.
 */
export async function installTarballs(dir: string, tarballs: string[]): Promise<ConsumerProject> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  const env = consumerEnv(dir);
  await execa(
    process.execPath,
    [NPM_CLI, "install", "--no-audit", "--no-fund", ...tarballs, `typescript@${pinned("typescript")}`],
    { cwd: dir, env, extendEnv: false },
  );
  return projectAt(dir);
}

/** The project installed at `dir`, as a test file finds it. */
export function projectAt(dir: string): ConsumerProject {
  return { dir, env: consumerEnv(dir), bin: (name) => join(dir, "node_modules", ".bin", name) };
}
