// `npm run pack [-- DIR]`: until the packages are published, the way to install them. It packs every
// publishable package with pnpm into DIR (default `./packed`), as a release does, and prints, for each
// package, the one `npm install` line that installs it into another project from those tarballs: its own and
// those of the Ollie packages it needs. A tarball alone is not enough, as its Ollie dependencies are named by
// version and npm would ask the registry for them; named together, npm takes each from its tarball.
// `npm run pack` builds first (scripts/setup.mjs); tests/consumer packs and installs through this file too.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";

export const MONOREPO = join(import.meta.dirname, "..");

export const PNPM = `pnpm@${JSON.parse(readFileSync(join(MONOREPO, "package.json"), "utf8")).packageManager.split("@")[1]}`;

/** Whether npm installs a package of this manifest here (its `cpu` and `os`, when it names them). */
const installableHere = (manifest) =>
  (!manifest.cpu || manifest.cpu.includes(process.arch)) &&
  (!manifest.os || manifest.os.includes(process.platform));

/** Every non-private package of the workspace: its name, directory and manifest, by directory. */
function workspacePackages() {
  const found = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(MONOREPO, group)).sort()) {
      const dir = join(MONOREPO, group, entry);
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      if (!manifest.private) found.push({ name: manifest.name, dir, manifest });
    }
  }
  return found;
}

/**
 * The publishable packages of the workspace, by directory: every non-private one this machine can install,
 * or with `everyPlatform` every non-private one (the other CPU's launcher package too). npm refuses a package
 * for another CPU when it is named directly; as an optional dependency it is skipped.
 */
export function publishablePackages({ everyPlatform = false } = {}) {
  return workspacePackages()
    .filter(({ manifest }) => everyPlatform || installableHere(manifest))
    .map(({ name, dir }) => ({ name, dir }));
}

/**
 * Packs each package, for every platform, with pnpm, as a release does (pnpm rewrites `workspace:` ranges and
 * applies publishConfig); returns each one's tarball by name. Lifecycle scripts are skipped: the workspace is
 * already built, and a release's prepack build is exercised by `release:dry`.
 */
export async function packWorkspace(destination) {
  const packed = await Promise.all(
    publishablePackages({ everyPlatform: true }).map(async ({ name, dir }) => {
      const { stdout } = await execa(
        "npx",
        ["-y", PNPM, "pack", "--json", "--pack-destination", destination],
        {
          cwd: dir,
          env: { npm_config_ignore_scripts: "true" },
        },
      );
      return [name, JSON.parse(stdout.slice(stdout.indexOf("{"))).filename];
    }),
  );
  return Object.fromEntries(packed);
}

/**
 * The workspace packages that installing `name` installs: itself, and, again and again, the workspace
 * packages among its dependencies, its optional dependencies npm installs here (this CPU's launcher) and its
 * peers that are not optional.
 */
export function workspaceClosure(name) {
  const byName = new Map(workspacePackages().map((p) => [p.name, p.manifest]));
  const needed = new Set();
  const visit = (current) => {
    const manifest = byName.get(current);
    if (!manifest || needed.has(current)) return;
    needed.add(current);
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const optional = Object.keys(manifest.optionalDependencies ?? {}).filter(
      (dep) => byName.has(dep) && installableHere(byName.get(dep)),
    );
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter((dep) => !optionalPeers[dep]?.optional);
    for (const dep of [...Object.keys(manifest.dependencies ?? {}), ...optional, ...peers]) visit(dep);
  };
  visit(name);
  return [...needed];
}

/** `word` as a shell reads it back: as it is when it is plain, else in single quotes. */
const shellWord = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The `npm install` line that installs `name` from `tarballs` (each package's tarball, by name). */
export function installLine(name, tarballs) {
  return ["npm", "install", ...workspaceClosure(name).map((dep) => shellWord(tarballs[dep]))].join(" ");
}

/**
 * What `npm run pack` prints: where the tarballs are, then, for each package a user installs here (not the
 * launcher packages, which `@ollie/sandbox` brings as optional dependencies), its name on one line and its
 * install line on the next.
 */
export function installInstructions(tarballs, destination) {
  const packages = workspacePackages();
  const brought = new Set(
    packages.flatMap(({ manifest }) => Object.keys(manifest.optionalDependencies ?? {})),
  );
  const names = packages
    .filter(({ name, manifest }) => !brought.has(name) && installableHere(manifest))
    .map(({ name }) => name);
  return [
    `Packed ${Object.keys(tarballs).length} packages into ${destination}.`,
    "Until they are published, install one into another project by pasting the line under its name there:",
    "",
    ...names.flatMap((name) => [name, `  ${installLine(name, tarballs)}`]),
    "",
  ].join("\n");
}

/** Packs every package into `destination`: each one's tarball by name, and what `npm run pack` prints. */
export async function pack(destination) {
  const tarballs = await packWorkspace(destination);
  return { tarballs, instructions: installInstructions(tarballs, destination) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A relative DIR is taken from where `npm run` was typed, not from the root npm runs the script in.
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: npm run sets it; this is no turbo task
  const typedIn = process.env.INIT_CWD ?? process.cwd();
  const given = process.argv[2];
  const destination = given ? resolve(typedIn, given) : join(MONOREPO, "packed");
  process.stdout.write((await pack(destination)).instructions);
}
