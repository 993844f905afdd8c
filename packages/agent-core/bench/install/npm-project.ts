import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { type NodeModulesFigures, nodeModulesFigures } from "./disk-usage.js";

/** A fresh project that plain npm installed, and what the install took. */
export interface InstalledProject extends NodeModulesFigures {
  dir: string;
  /** The registry requests npm made for packages of `scope` (`GET 404 @ollie/x`): none when all came from tarballs. */
  scopeRequests: string[];
}

export interface ProjectManifest {
  dependencies: Record<string, string>;
  /** Where npm must take a package from wherever it appears in the tree (here: tarballs of unpublished ones). */
  overrides?: Record<string, string>;
}

const NPM_CLI = realpathSync(join(dirname(process.execPath), "npm"));

/**
 * Writes `manifest` into a new project at `dir` and runs `npm install` there, as a user of plain npm would,
 * with npm's HTTP log read for the requests it made for packages of `scope`.
 */
export async function npmInstall(
  dir: string,
  manifest: ProjectManifest,
  scope = "@ollie",
): Promise<InstalledProject> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "measured", private: true, type: "module", ...manifest }, null, 2)}\n`,
  );
  const run = await execa(
    process.execPath,
    [NPM_CLI, "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel", "http"],
    {
      cwd: dir,
      reject: false,
      env: { npm_config_cache: join(tmpdir(), "ollie-bench-npm-cache"), npm_config_update_notifier: "false" },
    },
  );
  if (run.exitCode !== 0) throw new Error(`npm install failed in ${dir}:\n${run.stderr}`);
  return {
    dir,
    scopeRequests: registryRequests(`${run.stdout}\n${run.stderr}`, scope),
    ...(await nodeModulesFigures(join(dir, "node_modules"))),
  };
}

/** `npm http fetch GET 404 https://registry…/@ollie%2fsandbox-linux-arm64 52ms` → `GET 404 @ollie/sandbox-linux-arm64`. */
function registryRequests(log: string, scope: string): string[] {
  const requests: string[] = [];
  for (const match of log.matchAll(/npm http fetch (\w+) (\d+) (\S+)/g)) {
    const name = decodeURIComponent(new URL(match[3]!).pathname.slice(1));
    if (name.startsWith(`${scope}/`)) requests.push(`${match[1]} ${match[2]} ${name}`);
  }
  return requests;
}
