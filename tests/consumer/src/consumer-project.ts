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

/**
 * The environment of a consumer at `dir`: HOME, with the XDG directories where they are when unset (so that a
 * README's `~/.config/ollie` is where Ollie looks), NAMESPACE, TMPDIR, and a PATH with node and the system's
 * tools only (no workspace binaries).
 */
export function consumerEnv(dir: string): Record<string, string> {
  const home = join(dir, "home");
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
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
 * The consumer's tsconfig: strict, as a careful consumer's is, with every library's declarations checked. Each
 * file is a module, even one with no import or export (a README block is a module on its own), and
 * JavaScript is checked too (a README's `js` example).
 */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    module: "nodenext",
    moduleResolution: "nodenext",
    moduleDetection: "force",
    target: "es2022",
    types: ["node"],
    allowJs: true,
    checkJs: true,
    outDir: "out",
  },
  include: ["src"],
};

/**
 * Installs the tarballs with plain npm into a fresh project, with TypeScript to type-check a consumer and
 * vitest for the READMEs' test examples (both at the workspace's versions). Dependencies outside the
 * workspace come from the registry.
 */
export async function installTarballs(dir: string, tarballs: string[]): Promise<ConsumerProject> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  const env = consumerEnv(dir);
  const tools = ["typescript", "vitest"].map((name) => `${name}@${pinned(name)}`);
  await execa(process.execPath, [NPM_CLI, "install", "--no-audit", "--no-fund", ...tarballs, ...tools], {
    cwd: dir,
    env,
    extendEnv: false,
  });
  return projectAt(dir);
}

/** The project installed at `dir`, as a test file finds it. */
export function projectAt(dir: string): ConsumerProject {
  return { dir, env: consumerEnv(dir), bin: (name) => join(dir, "node_modules", ".bin", name) };
}
