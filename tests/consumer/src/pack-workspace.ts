import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

export const MONOREPO = join(import.meta.dirname, "..", "..", "..");

interface Manifest {
  name: string;
  private?: boolean;
  cpu?: string[];
}

/**
 * The publishable packages of the workspace, by directory: every non-private one this machine can install,
 * or with `everyPlatform` every non-private one (the other CPU's launcher package too).
 */
export function publishablePackages({ everyPlatform = false } = {}): { name: string; dir: string }[] {
  const found: { name: string; dir: string }[] = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(MONOREPO, group)).sort()) {
      const dir = join(MONOREPO, group, entry);
      let manifest: Manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      // npm refuses a package for another CPU when it is named directly; as an optional dependency it is skipped.
      if (manifest.private) continue;
      if (!everyPlatform && manifest.cpu && !manifest.cpu.includes(process.arch)) continue;
      found.push({ name: manifest.name, dir });
    }
  }
  return found;
}

export const PNPM = `pnpm@${JSON.parse(readFileSync(join(MONOREPO, "package.json"), "utf8")).packageManager.split("@")[1]}`;

/**
 * Packs each package, for every platform, with pnpm, as a release does (pnpm rewrites `workspace:` ranges and
 * applies publishConfig); returns each one's tarball by name. Lifecycle scripts are skipped: the workspace is
 * already built, and a release's prepack build is exercised by `release:dry`.
 */
export async function packWorkspace(destination: string): Promise<Record<string, string>> {
  const tarballs: Record<string, string> = {};
  for (const { name, dir } of publishablePackages({ everyPlatform: true })) {
    const { stdout } = await execa("npx", ["-y", PNPM, "pack", "--json", "--pack-destination", destination], {
      cwd: dir,
      env: { npm_config_ignore_scripts: "true" },
    });
    tarballs[name] = JSON.parse(stdout.slice(stdout.indexOf("{"))).filename;
  }
  return tarballs;
}
