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

/** What an install into a consumer project did. */
export interface Installed extends ConsumerProject {
  /** The requests npm made to the registry for @ollie packages (`GET 404 @ollie/x`); none is expected. */
  ollieRequests: string[];
}

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
 * Installs `names` with plain npm into a fresh project, as a user would from the registry, taking every package
 * of the workspace from its tarball wherever the tree names it (`overrides`; `tarballs` has every platform's,
 * so npm reads the other CPU's launcher package from its tarball and skips it by its `cpu`, rather than asking
 * the registry for it). With TypeScript and @types/node, which a consumer who type-checks installs, and
 * vitest for the READMEs' test examples (all at the workspace's versions). Dependencies outside the workspace come from the registry.
 */
export async function installTarballs(
  dir: string,
  tarballs: Record<string, string>,
  names: readonly string[],
): Promise<Installed> {
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => `file:${tarballs[name]}`;
  const manifest = {
    name: "consumer",
    private: true,
    type: "module",
    dependencies: {
      ...Object.fromEntries(names.map((name) => [name, file(name)])),
      "@types/node": pinned("@types/node"),
      typescript: pinned("typescript"),
      vitest: pinned("vitest"),
    },
    overrides: Object.fromEntries(Object.keys(tarballs).map((name) => [name, file(name)])),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  const env = consumerEnv(dir);
  const install = await execa(
    process.execPath,
    [NPM_CLI, "install", "--no-audit", "--no-fund", "--loglevel", "http"],
    { cwd: dir, env, extendEnv: false },
  );
  return { ...projectAt(dir), ollieRequests: ollieRequests(`${install.stdout}\n${install.stderr}`) };
}

/** `npm http fetch GET 404 https://registry…/@ollie%2fsandbox-linux-arm64 52ms` → `GET 404 @ollie/sandbox-linux-arm64`. */
function ollieRequests(log: string): string[] {
  return [...log.matchAll(/npm http fetch (\w+) (\d+) (\S+)/g)].flatMap(([, method, status, url]) => {
    const name = decodeURIComponent(new URL(url!).pathname.slice(1));
    return name.startsWith("@ollie/") ? [`${method} ${status} ${name}`] : [];
  });
}

/** The project installed at `dir`, as a test file finds it. */
export function projectAt(dir: string): ConsumerProject {
  return { dir, env: consumerEnv(dir), bin: (name) => join(dir, "node_modules", ".bin", name) };
}
