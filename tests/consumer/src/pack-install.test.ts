import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { consumerEnv } from "./consumer-project.js";
import { MONOREPO } from "./pack-workspace.js";

/**
 * Until the packages are published, `npm run pack` is how they install: it prints, under each package's name,
 * the line that installs it from the tarballs. Here that line for @ollie/agent-core is pasted, as printed,
 * into a bash in a fresh project with plain npm, and the installed package is imported.
 */

const { dir: packedDir, instructions } = inject("packed");

/** The line `npm run pack` printed under `name`. */
function printedLine(name: string): string {
  const lines = instructions.split("\n");
  const line = lines[lines.indexOf(name) + 1];
  if (!lines.includes(name) || !line) throw new Error(`no install line for ${name} in:\n${instructions}`);
  return line.trim();
}

const root = mkdtempSync(join(tmpdir(), "ollie-pack-install-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const project = join(root, "project");
const env = consumerEnv(project);

beforeAll(async () => {
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`,
  );
  await execa("bash", ["-c", printedLine("@ollie/agent-core")], { cwd: project, env, extendEnv: false });
}, 240_000);

describe("npm run pack", () => {
  it("prints an install line for every package a user installs, not for the launcher packages", () => {
    const names = instructions.split("\n").filter((line) => /^(@ollie\/)?[a-z-]+$/.test(line));
    expect(names).toContain("@ollie/agent-core");
    expect(names).toContain("olliesrv");
    expect(names.filter((name) => name.startsWith("@ollie/sandbox-linux-"))).toEqual([]);
    for (const name of names) expect(printedLine(name)).toMatch(/^npm install \S+\.tgz( \S+\.tgz)*$/);
  });

  it("installs @ollie/agent-core, pasted as printed, every Ollie package from its tarball, and it imports", async () => {
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8"));
    const ollie = Object.entries(lock.packages as Record<string, { resolved?: string }>).filter(([path]) =>
      path.startsWith("node_modules/@ollie/"),
    );
    expect(ollie.map(([path]) => path).sort()).toEqual([
      "node_modules/@ollie/agent-core",
      "node_modules/@ollie/backends",
      "node_modules/@ollie/config-file",
      "node_modules/@ollie/telemetry",
    ]);
    for (const [path, { resolved }] of ollie) expect(resolved, path).toMatch(/^file:.*\.tgz$/);
    // The optional peer stays out, as it does when installed by name.
    expect(existsSync(join(project, "node_modules", "@ollie", "sandbox"))).toBe(false);
    const { stdout } = await execa(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const { Agent } = await import("@ollie/agent-core"); console.log(typeof Agent);',
      ],
      { cwd: project, env, extendEnv: false },
    );
    expect(stdout).toBe("function");
  });

  it("is the line the root README shows for @ollie/agent-core, with the clone in ~/ollie", () => {
    const readme = readFileSync(join(MONOREPO, "README.md"), "utf8");
    expect(readme).toContain(printedLine("@ollie/agent-core").replaceAll(packedDir, "~/ollie/packed"));
  });
});
