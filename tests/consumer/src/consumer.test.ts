import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type ConsumerProject, projectAt } from "./consumer-project.js";
import { ENTRY_POINTS } from "./entry-points.js";
import { publishablePackages } from "./pack-workspace.js";
import { relativeLinks } from "./readme-code.js";

let project: ConsumerProject;
const installed = (name: string) => join(project.dir, "node_modules", name);
const packages = publishablePackages();

beforeAll(() => {
  project = projectAt(inject("consumerDir"));
});

describe("the installed packages", () => {
  it.each(packages.map((p) => p.name))(
    "%s carries its LICENSE and README, and its README's links resolve",
    (name) => {
      const dir = installed(name);
      expect(readFileSync(join(dir, "LICENSE"), "utf8")).toMatch(/^MIT License/);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      expect(manifest.repository).toMatchObject({ type: "git", directory: expect.any(String) });
      expect(manifest).toMatchObject({ homepage: expect.any(String), bugs: expect.any(Object) });
      const readme = join(dir, "README.md");
      for (const link of relativeLinks(readme)) {
        expect(
          existsSync(join(dir, link)),
          `${name}'s README links to ${link}, which is not in the package`,
        ).toBe(true);
      }
      if (manifest.exports) expect(readFileSync(readme, "utf8")).toMatch(/ESM only, Node ≥ 20\.\d+/);
    },
  );

  it("came from their tarballs: npm asked the registry for no @ollie package, the other CPU's launcher included", () => {
    expect(inject("ollieRequests")).toEqual([]);
  });

  it.each(packages.map((p) => p.name))(
    "%s does not install @types/node: a consumer who type-checks has it (an optional peer at most)",
    (name) => {
      const manifest = JSON.parse(readFileSync(join(installed(name), "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies ?? {})).not.toContain("@types/node");
      if (manifest.peerDependencies?.["@types/node"])
        expect(manifest.peerDependenciesMeta?.["@types/node"]).toEqual({ optional: true });
    },
  );

  it("toolsrv's tools are executable, as the tool server needs them", () => {
    const tools = join(installed("toolsrv"), "tools");
    const names = readdirSync(tools);
    expect(names.length).toBeGreaterThan(5);
    for (const tool of names) expect(() => accessSync(join(tools, tool), constants.X_OK), tool).not.toThrow();
  });
});

describe("a strict TypeScript consumer", () => {
  const diagnostics = () => inject("diagnostics");
  const node = (file: string, args: string[] = []) =>
    execa(process.execPath, [file, ...args], { cwd: project.dir, env: project.env, extendEnv: false });
  const readmeModule = (document: string, language: string) => {
    const found = inject("readmeModules").find((m) => m.document === document && m.language === language);
    if (!found) throw new Error(`no ${language} block in ${document}`);
    return found;
  };

  it("type-checks every entry point of every package, strictly, with every declaration file checked", () => {
    expect(diagnostics()[""] ?? [], "tsc's errors in no file").toEqual([]);
    expect(diagnostics()[ENTRY_POINTS.source] ?? []).toEqual([]);
  });

  it("loads every entry point of every package", async () => {
    const { stdout } = await node(ENTRY_POINTS.output);
    const loaded: Record<string, number> = JSON.parse(stdout);
    expect(Object.keys(loaded)).toContain("@ollie/agent-core");
    for (const [entry, exports] of Object.entries(loaded)) expect(exports, entry).toBeGreaterThan(0);
  });

  it("runs the agent-core README's example as written", async () => {
    const { stdout } = await node(readmeModule("@ollie/agent-core/README.md", "ts").output);
    expect(stdout).toContain("There are 4 words.");
    expect(stdout).toMatch(/done after 1 round\(s\) of tools, 2 requests/);
  });

  it("runs the config-file README's example as written, and prints what the README says", async () => {
    const readme = installed("@ollie/config-file/README.md");
    const { stdout } = await node(readmeModule("@ollie/config-file/README.md", "js").source);
    const printed = readFileSync(readme, "utf8")
      .split("`node example.mjs` prints:\n\n```\n")[1]!
      .split("```")[0]!;
    expect(`${stdout}\n`).toBe(printed);
  });
});
