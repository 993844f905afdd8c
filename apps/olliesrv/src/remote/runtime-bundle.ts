import { existsSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { type Bundle, hashedBundle, walk } from "./bundle.js";

/** One installed package to carry: its name, its directory here, and where it goes in the bundle. */
export interface BundledPackage {
  name: string;
  version: string;
  dir: string;
  /** `node_modules/NAME`, or nested under the package that needs a version another one does not. */
  path: string;
}

/** What a remote host needs to run toolsrv: its packages, as a bundle. */
export interface RuntimeBundle extends Bundle {
  packages: BundledPackage[];
}

interface Manifest {
  name: string;
  version: string;
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const readManifest = async (dir: string) =>
  JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Manifest;

/** Where `name` is installed as seen from `from`: Node's lookup, up the node_modules directories. */
async function installedDir(name: string, from: string): Promise<string | undefined> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpath(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** The node_modules directories Node looks in, nearest first, for a package at bundle path `from`. */
function lookupChain(from: string, name: string): string[] {
  const parts = from.split("/node_modules/");
  const chain: string[] = [];
  for (let n = parts.length; n >= 1; n--)
    chain.push(`${parts.slice(0, n).join("/node_modules/")}/node_modules/${name}`);
  chain.push(`node_modules/${name}`);
  return [...new Set(chain)];
}

/**
 * toolsrv and every package it needs at run time, as installed beside olliesrv (optional dependencies, such
 * as a prebuilt sandbox launcher, when they are installed), each placed in a node_modules tree where Node
 * finds the version its dependent was installed with: at the top when it can be, nested when another
 * version holds that place.
 */
export async function toolsrvPackages(): Promise<BundledPackage[]> {
  const root = await realpath(dirname(createRequire(import.meta.url).resolve("toolsrv/package.json")));
  const placed = new Map<string, BundledPackage>();
  const rootManifest = await readManifest(root);
  const queue: BundledPackage[] = [
    {
      name: rootManifest.name,
      version: rootManifest.version,
      dir: root,
      path: `node_modules/${rootManifest.name}`,
    },
  ];
  placed.set(queue[0]!.path, queue[0]!);
  while (queue.length > 0) {
    const pkg = queue.shift()!;
    const manifest = await readManifest(pkg.dir);
    const required = Object.keys(manifest.dependencies ?? {});
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    // Type declarations are for compilers: nothing loads them at run time.
    for (const name of [...required, ...optional].filter((n) => !n.startsWith("@types/"))) {
      const dir = await installedDir(name, pkg.dir);
      if (!dir) {
        if (required.includes(name))
          throw new Error(`${manifest.name} needs ${name}, which is not installed`);
        continue;
      }
      const chain = lookupChain(pkg.path, name);
      const nearest = chain.map((path) => placed.get(path)).find((p) => p !== undefined);
      if (nearest?.dir === dir) continue;
      const path = nearest ? chain[0]! : chain[chain.length - 1]!;
      const version = (await readManifest(dir)).version;
      const dep: BundledPackage = { name, version, dir, path };
      placed.set(path, dep);
      queue.push(dep);
    }
  }
  return [...placed.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The files of a package as its tarball has them. One installed from a tarball (under node_modules) is
 * that already; a linked workspace package is its `files` directories, manifest, README and LICENSE.
 */
async function packageFiles(pkg: BundledPackage): Promise<string[]> {
  const manifest = await readManifest(pkg.dir);
  const installed = pkg.dir.split("/").includes("node_modules");
  if (installed || !manifest.files) return walk(pkg.dir, (name) => name === "node_modules");
  const listed = new Set([...manifest.files, "package.json", "README.md", "LICENSE"]);
  const files: string[] = [];
  for (const entry of listed) {
    const path = join(pkg.dir, entry);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) files.push(...(await walk(path, () => false)));
    else if (info?.isFile()) files.push(path);
  }
  return files;
}

/** toolsrv and its packages as a bundle (toolsrvPackages() by default). */
export async function runtimeBundle(packages?: BundledPackage[]): Promise<RuntimeBundle> {
  const list = packages ?? (await toolsrvPackages());
  const files: { path: string; source: string }[] = [];
  for (const pkg of list) {
    for (const source of await packageFiles(pkg))
      files.push({ path: join(pkg.path, relative(pkg.dir, source)), source });
  }
  const manifest = list.map(({ name, version, path }) => ({ name, version, path }));
  return { ...(await hashedBundle(files, manifest)), packages: list };
}
