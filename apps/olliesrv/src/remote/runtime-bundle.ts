import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

/** One installed package to carry: its name, its directory here, and where it goes in the bundle. */
export interface BundledPackage {
  name: string;
  version: string;
  dir: string;
  /** `node_modules/NAME`, or nested under the package that needs a version another one does not. */
  path: string;
}

/** What a remote host needs to run toolsrv: packages, their files, and a hash of all of it. */
export interface RuntimeBundle {
  packages: BundledPackage[];
  /** Every file, relative to the bundle's root, with where it is here. */
  files: { path: string; source: string; executable: boolean }[];
  /** sha256 of every path, mode and content: the name of the directory it is unpacked into. */
  hash: string;
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

async function walk(dir: string, skip: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path, () => false)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
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

/** Lists and hashes the bundle of `packages` (toolsrvPackages() by default). */
export async function runtimeBundle(packages?: BundledPackage[]): Promise<RuntimeBundle> {
  const list = packages ?? (await toolsrvPackages());
  const files: RuntimeBundle["files"] = [];
  const hash = createHash("sha256");
  for (const pkg of list) {
    for (const source of (await packageFiles(pkg)).sort()) {
      const path = join(pkg.path, relative(pkg.dir, source));
      const executable = ((await stat(source)).mode & 0o111) !== 0;
      files.push({ path, source, executable });
      hash.update(`${path}\0${executable ? "x" : "-"}\0`);
      hash.update(await readFile(source));
      hash.update("\0");
    }
  }
  return { packages: list, files, hash: hash.digest("hex").slice(0, 32) };
}

/**
 * The bundle as a directory under `cacheDir` named by its hash, made once (in a temporary directory renamed
 * into place, so a half-made one is never taken for whole).
 */
export async function stageBundle(bundle: RuntimeBundle, cacheDir: string): Promise<string> {
  const target = join(cacheDir, bundle.hash);
  if (existsSync(target)) return target;
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const temp = join(cacheDir, `.${bundle.hash}.${process.pid}.tmp`);
  await rm(temp, { recursive: true, force: true });
  for (const file of bundle.files) {
    await mkdir(dirname(join(temp, file.path)), { recursive: true });
    await cp(file.source, join(temp, file.path), { preserveTimestamps: true });
  }
  await writeFile(
    join(temp, "bundle.json"),
    `${JSON.stringify(bundle.packages.map(({ name, version, path }) => ({ name, version, path })))}\n`,
  );
  await rename(temp, target).catch(async (error: NodeJS.ErrnoException) => {
    // Another daemon staged the same bundle first: theirs is the same bytes.
    await rm(temp, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  });
  return target;
}
