import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, it } from "vitest";
import { packageRoot } from "./package-root.js";

/**
 * As a user meets the package: packed to tarballs, installed with plain npm into an empty project on a
 * machine with no C compiler, then used. The launcher must come from the platform package.
 */

const root = mkdtempSync(join(tmpdir(), "sandbox-packed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const monorepo = join(packageRoot(), "..", "..");
const pnpm = `pnpm@${JSON.parse(readFileSync(join(monorepo, "package.json"), "utf8")).packageManager.split("@")[1]}`;

it("installs from its tarballs with npm and runs a sandboxed command with the prebuilt launcher, without a C compiler", async () => {
  const tarballs = join(root, "tarballs");
  // Both platforms' launcher packages: npm reads the other one's `cpu` from its tarball and skips it, as it
  // would from the registry, where a release publishes both. @ollie/config-file is a workspace dependency: a
  // release publishes it beside the sandbox.
  const packages = [
    packageRoot(),
    join(monorepo, "packages", "sandbox-linux-x64"),
    join(monorepo, "packages", "sandbox-linux-arm64"),
    join(monorepo, "packages", "config-file"),
  ];
  // No prepack build: the package is built already, and a rebuild would empty dist/ under the other
  // packages' tests running beside this one.
  const tarball: Record<string, string> = {};
  for (const dir of packages) {
    const { stdout } = await execa("npx", ["-y", pnpm, "pack", "--json", "--pack-destination", tarballs], {
      cwd: dir,
      env: { npm_config_ignore_scripts: "true" },
    });
    const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name;
    tarball[name] = `file:${JSON.parse(stdout.slice(stdout.indexOf("{"))).filename}`;
  }

  // A PATH with node and a shell, and nothing else: no cc, no gcc, no clang.
  const bin = join(root, "bin");
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, "node"));
  symlinkSync("/bin/sh", join(bin, "sh"));
  const npmCli = realpathSync(join(dirname(process.execPath), "npm"));
  const project = join(root, "project");
  for (const dir of ["work", "tmp", "cache", "config", "home"])
    mkdirSync(join(project, dir), { recursive: true });
  // `npm i @ollie/sandbox`, every package of the workspace found at its tarball wherever the tree names it.
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: { "@ollie/sandbox": tarball["@ollie/sandbox"] },
      overrides: tarball,
    }),
  );
  const env = {
    PATH: bin,
    HOME: join(project, "home"),
    XDG_CACHE_HOME: join(project, "cache"),
    XDG_CONFIG_HOME: join(project, "config"),
    npm_config_cache: join(tmpdir(), "ollie-test-npm-cache"),
  };
  const install = await execa(
    process.execPath,
    [npmCli, "install", "--no-audit", "--no-fund", "--loglevel", "http"],
    { cwd: project, env, extendEnv: false, reject: false },
  );
  expect(install.stderr).not.toMatch(/ERR!/);
  expect(install.exitCode).toBe(0);
  // Every @ollie package came from its tarball: the registry was asked for none, the other CPU's included.
  expect(install.stderr.split("\n").filter((line) => /npm http fetch .*@ollie%2f/.test(line))).toEqual([]);
  expect(readdirSync(join(project, "node_modules", "@ollie")).sort()).toEqual([
    "config-file",
    "sandbox",
    `sandbox-linux-${process.arch}`,
  ]);

  writeFileSync(
    join(project, "use.mjs"),
    `import { ensureLauncher, resolvePolicy, runSandboxed } from "@ollie/sandbox";
const policy = await resolvePolicy();
const r = await runSandboxed("/bin/sh", ["-c", "echo sandboxed in $PWD; cat /etc/shadow"], {
  policy,
  cwd: "${join(project, "work")}",
  env: { PATH: "/usr/bin:/bin", TMPDIR: "${join(project, "tmp")}" },
});
console.log(JSON.stringify({ origin: (await ensureLauncher()).origin, out: r.stdout.toString(), err: r.stderr.toString() }));
`,
  );
  const used = await execa(process.execPath, ["use.mjs"], { cwd: project, env, extendEnv: false });
  const result = JSON.parse(used.stdout);
  expect(result).toMatchObject({ origin: "prebuilt", out: `sandboxed in ${join(project, "work")}\n` });
  expect(result.err).toMatch(/cat: \/etc\/shadow: Permission denied/);
}, 240_000);
