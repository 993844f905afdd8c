import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { loadSandbox } from "./load-sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "backends-load-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * What `loadSandbox` gives a program in `project` (a directory of its own, outside the workspace) that loads
 * `@ollie/sandbox/process` through this package's build.
 */
async function loadFrom(project: string): Promise<Record<string, unknown>> {
  mkdirSync(project, { recursive: true });
  const backends = pathToFileURL(join(import.meta.dirname, "..", "dist", "index.js")).href;
  writeFileSync(
    join(project, "load.mjs"),
    `import { loadSandbox, SandboxNotInstalledError } from ${JSON.stringify(backends)};
try {
  const loaded = await loadSandbox("the key_cmd of [openai]", () => import("@ollie/sandbox/process"));
  console.log(JSON.stringify({ loaded: Object.keys(loaded) }));
} catch (err) {
  console.log(JSON.stringify({
    typed: err instanceof SandboxNotInstalledError,
    name: err.name,
    message: err.message,
    neededBy: err.neededBy,
    packageName: err.packageName,
    cause: err.cause?.code,
  }));
}
`,
  );
  const { stdout } = await execa(process.execPath, ["load.mjs"], { cwd: project });
  return JSON.parse(stdout);
}

describe("loadSandbox", () => {
  it("gives the module when @ollie/sandbox is installed", async () => {
    const loaded = await loadSandbox("a test", () => import("@ollie/sandbox/process"));
    expect(loaded.runShellInGroup).toBeTypeOf("function");
  });

  it("says what needed @ollie/sandbox, and how to install it, when it is not installed", async () => {
    expect(await loadFrom(join(dir, "without"))).toEqual({
      typed: true,
      name: "SandboxNotInstalledError",
      message:
        "the key_cmd of [openai] needs @ollie/sandbox to run its shell in a process group: npm i @ollie/sandbox",
      neededBy: "the key_cmd of [openai]",
      packageName: "@ollie/sandbox",
      cause: "ERR_MODULE_NOT_FOUND",
    });
  });

  it("passes on a failure inside an installed @ollie/sandbox unchanged", async () => {
    const project = join(dir, "broken");
    const sandbox = join(project, "node_modules", "@ollie", "sandbox");
    mkdirSync(sandbox, { recursive: true });
    writeFileSync(
      join(sandbox, "package.json"),
      JSON.stringify({ name: "@ollie/sandbox", type: "module", exports: { "./process": "./process.js" } }),
    );
    writeFileSync(join(sandbox, "process.js"), 'export * from "a-dependency-npm-left-out";\n');
    const result = await loadFrom(project);
    expect(result).toMatchObject({ typed: false, name: "Error" });
    expect(result.message).toMatch(/Cannot find package 'a-dependency-npm-left-out'/);
  });
});
