import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { megabytes } from "./install/disk-usage.js";
import { type InstalledProject, npmInstall } from "./install/npm-project.js";
import { packWithWorkspaceDeps, scratchCheckout } from "./install/pack.js";

/**
 * `npm i @ollie/agent-core @ollie/backends` from tarballs this checkout packs (and, with `--before REV`, from
 * those of another revision, built in a scratch worktree), beside `npm i ai @ai-sdk/openai-compatible` and
 * `npm i @mariozechner/pi-agent-core` from the registry, at the versions this package's benchmarks use; each
 * into an empty project of its own, in the same run. For each: the packages in node_modules and the bytes they
 * take on disk, and the registry requests npm made for @ollie packages (none: every one comes from a tarball,
 * the other platform's launcher package included, which npm then skips by its `cpu`).
 *
 *   node --import tsx bench/install-size.ts [--before REV]
 */

const PACKAGE_DIR = join(import.meta.dirname, "..");
export const MONOREPO = join(PACKAGE_DIR, "..", "..");

/** What a user of each library installs. */
export const OLLIE = ["@ollie/agent-core", "@ollie/backends"] as const;
export const AI_SDK = ["ai", "@ai-sdk/openai-compatible"] as const;
export const PI = ["@mariozechner/pi-agent-core"] as const;

/** The version this package's benchmarks pin `name` at (its devDependencies). */
export function pinned(name: string): string {
  const version = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")).devDependencies[name];
  if (!version) throw new Error(`${name} is not among @ollie/agent-core's devDependencies`);
  return version;
}

export interface Measured extends InstalledProject {
  label: string;
}

/** Installs OLLIE from the tarballs of the checkout at `root` (built) into `work/<name>`. */
export async function installOllie(
  root: string,
  work: string,
  name: string,
  label: string,
): Promise<Measured> {
  const tarballs = await packWithWorkspaceDeps(root, OLLIE, join(work, `${name}-tarballs`));
  const file = (pkg: string) => `file:${tarballs.get(pkg)}`;
  const project = await npmInstall(join(work, name), {
    dependencies: Object.fromEntries(OLLIE.map((pkg) => [pkg, file(pkg)])),
    // As if every package were published: each found at its tarball wherever the tree names it.
    overrides: Object.fromEntries([...tarballs.keys()].map((pkg) => [pkg, file(pkg)])),
  });
  return { label, ...project };
}

/** Installs `names` from the registry, at their pinned versions, into `work/<name>`. */
export async function installPublished(
  names: readonly string[],
  work: string,
  name: string,
): Promise<Measured> {
  const dependencies = Object.fromEntries(names.map((pkg) => [pkg, pinned(pkg)]));
  const project = await npmInstall(join(work, name), { dependencies });
  return { label: names.map((pkg) => `${pkg}@${dependencies[pkg]}`).join(" "), ...project };
}

/** A table row per install: its packages, its bytes on disk, and its registry requests for @ollie packages. */
export function installTable(rows: readonly Measured[]): string {
  return [
    "| npm i | packages | on disk | registry requests for @ollie/* |",
    "| --- | ---: | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.packages} | ${megabytes(r.bytes)} | ${r.scopeRequests.length === 0 ? "none" : r.scopeRequests.join(", ")} |`,
    ),
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { before: { type: "string" } } });
  const work = mkdtempSync(join(tmpdir(), "ollie-install-size-"));
  try {
    const rows: Measured[] = [
      await installOllie(MONOREPO, work, "ollie", `${OLLIE.join(" ")} (this checkout)`),
    ];
    if (values.before) {
      const { stdout: short } = await execa("git", ["rev-parse", "--short", values.before], {
        cwd: MONOREPO,
      });
      console.error(`building ${short} in a scratch worktree…`);
      const checkout = await scratchCheckout(MONOREPO, values.before, OLLIE);
      try {
        rows.push(await installOllie(checkout.root, work, "before", `${OLLIE.join(" ")} (${short})`));
      } finally {
        await checkout.remove();
      }
    }
    rows.push(await installPublished(AI_SDK, work, "ai"), await installPublished(PI, work, "pi"));
    console.log(
      `Installs into empty projects, npm ${(await execa("npm", ["--version"])).stdout}, Node ${process.version}, ${process.platform}-${process.arch}:\n`,
    );
    console.log(installTable(rows));
    if (rows[0]!.scopeRequests.length > 0) {
      console.error("npm asked the registry for @ollie packages it was given as tarballs");
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await main();
