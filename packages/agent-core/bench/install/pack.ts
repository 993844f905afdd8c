import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  packageManager?: string;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

const pnpmOf = (root: string): string =>
  `pnpm@${readManifest(root).packageManager?.split("@")[1] ?? "latest"}`;

/** The workspace's packages under `root/packages`, by name. */
function workspacePackages(root: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(join(root, "packages"))) {
    const dir = join(root, "packages", entry);
    try {
      const manifest = readManifest(dir);
      if (!manifest.private) found.set(manifest.name, dir);
    } catch {
      // Not a package.
    }
  }
  return found;
}

/**
 * Packs `names` and every workspace package they may pull in (dependencies, optional dependencies — every
 * platform's launcher package — and peers), from a checkout at `root` whose packages are built, with pnpm as a
 * release packs them (`workspace:` ranges rewritten). Returns each package's tarball by name.
 */
export async function packWithWorkspaceDeps(
  root: string,
  names: readonly string[],
  destination: string,
): Promise<Map<string, string>> {
  const workspace = workspacePackages(root);
  const pnpm = pnpmOf(root);
  const tarballs = new Map<string, string>();
  const pending = [...names];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const dir = workspace.get(name);
    if (dir === undefined || tarballs.has(name)) continue;
    const { stdout } = await execa("npx", ["-y", pnpm, "pack", "--json", "--pack-destination", destination], {
      cwd: dir,
      // Built already: no prepack build.
      env: { npm_config_ignore_scripts: "true" },
    });
    tarballs.set(name, JSON.parse(stdout.slice(stdout.indexOf("{"))).filename);
    const m = readManifest(dir);
    pending.push(
      ...Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies }).filter((n) =>
        workspace.has(n),
      ),
    );
  }
  return tarballs;
}

/**
 * A built checkout of `revision` in a scratch git worktree of the repository at `repo`: installed with pnpm
 * and `packages` built with their dependencies. `remove` deletes it.
 */
export async function scratchCheckout(
  repo: string,
  revision: string,
  packages: readonly string[],
): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = join(mkdtempSync(join(tmpdir(), "ollie-revision-")), "checkout");
  await execa("git", ["worktree", "add", "--detach", root, revision], { cwd: repo });
  const remove = async () => {
    await execa("git", ["worktree", "remove", "--force", root], { cwd: repo, reject: false });
    rmSync(join(root, ".."), { recursive: true, force: true });
  };
  try {
    const pnpm = pnpmOf(root);
    await execa("npx", ["-y", pnpm, "install", "--frozen-lockfile"], { cwd: root });
    await execa(
      "npx",
      ["-y", pnpm, "exec", "turbo", "run", "build", ...packages.map((p) => `--filter=${p}...`)],
      {
        cwd: root,
      },
    );
    return { root, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
