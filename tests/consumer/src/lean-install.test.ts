import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type ConsumerProject, type Installed, installTarballs, projectAt } from "./consumer-project.js";

/**
 * `npm i @ollie/agent-core @ollie/backends` alone, as a library user installs them: no @ollie/sandbox (an
 * optional peer, needed only to run shell commands), so none of its launcher packages and no execa. What
 * needs the sandbox — a key_cmd, a hook, a prompt command, a profile with hooks — says so by name; with the
 * sandbox installed (the full consumer project) the same program runs them.
 */

const root = mkdtempSync(join(tmpdir(), "ollie-lean-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let lean: Installed;

/** A strict consumer: every shell command an agent-core or backends user can ask for, and what each gave. */
const PROGRAM = `import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolSet } from "@ollie/agent-core";
import { profileLoader, resolvePrompt, SandboxNotInstalledError, shellHooks } from "@ollie/agent-core/config";
import { parseBackendsConf, resolveCredential } from "@ollie/backends";
import { ScriptedBackend } from "@ollie/backends/testing";

const cwd = process.cwd();

/** What a call gave: its value, or the error it threw and whether that is the typed one. */
async function outcome(call: () => Promise<unknown>): Promise<object> {
  try {
    return { value: await call() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err), typed: err instanceof SandboxNotInstalledError };
  }
}

const conf = parseBackendsConf("[openai]\\ntype = openai\\nurl = http://127.0.0.1:9/v1\\nmodel = m\\nkey_cmd = echo sk-from-a-command\\n");
mkdirSync(join(cwd, "agents"), { recursive: true });
writeFileSync(join(cwd, "agents", "guarded.json"), JSON.stringify({ hooks: { preTurn: "true" } }));
const load = profileLoader({
  agentsDir: join(cwd, "agents"),
  backend: async () => new ScriptedBackend(),
  tools: async () => new ToolSet([]),
  prompt: { ollieDir: cwd },
});

console.log(
  JSON.stringify({
    keyCmd: await outcome(async () => (await resolveCredential(conf.profiles.get("openai")!))?.reveal()),
    hook: await shellHooks({ preTool: "echo allowed" }, { cwd }).run!("preTool", { event: "preTool" }),
    prompt: await outcome(() => resolvePrompt("!echo from a command", { cwd, ollieDir: cwd })),
    profile: await outcome(async () => (await load("guarded", { cwd })).hooks !== undefined),
  }),
);
`;

const needs = (what: string) =>
  `${what} needs @ollie/sandbox to run its shell in a process group: npm i @ollie/sandbox`;

async function run(project: ConsumerProject): Promise<Record<string, unknown>> {
  const { stdout } = await execa(process.execPath, ["out/needs-sandbox.js"], {
    cwd: project.dir,
    env: project.env,
    extendEnv: false,
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  lean = await installTarballs(join(root, "project"), inject("tarballs"), [
    "@ollie/agent-core",
    "@ollie/backends",
  ]);
  mkdirSync(join(lean.dir, "src"));
  writeFileSync(join(lean.dir, "src", "needs-sandbox.ts"), PROGRAM);
  writeFileSync(
    join(lean.dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        types: ["node"],
        outDir: "out",
      },
      include: ["src"],
    }),
  );
  // Strict, with skipLibCheck off: the packages' declarations need neither the sandbox nor more than the
  // consumer's own @types/node.
  const tsc = await execa(lean.bin("tsc"), ["-p", "."], {
    cwd: lean.dir,
    env: lean.env,
    extendEnv: false,
    reject: false,
  });
  expect(tsc.stdout, "tsc found errors").toBe("");
  expect(tsc.exitCode).toBe(0);
}, 240_000);

describe("agent-core and backends installed alone", () => {
  it("install neither @ollie/sandbox nor its launcher packages nor execa, and ask the registry for no @ollie package", () => {
    const modules = join(lean.dir, "node_modules");
    for (const absent of [
      "@ollie/sandbox",
      "@ollie/sandbox-linux-x64",
      "@ollie/sandbox-linux-arm64",
      "execa",
    ])
      expect(existsSync(join(modules, absent)), absent).toBe(false);
    expect(lean.ollieRequests).toEqual([]);
  });

  it("name @ollie/sandbox, and what needed it, when a key_cmd, a hook, a prompt command or a hooked profile runs", async () => {
    expect(await run(lean)).toEqual({
      keyCmd: { error: needs("the key_cmd of [openai]"), typed: true },
      // preTool fails closed: a hook that cannot run blocks the call.
      hook: {
        action: "block",
        output: `the preTool hook could not decide (could not start: ${needs("the preTool hook")}), so the call was not run`,
        warnings: [`preTool hook 'echo allowed' could not start: ${needs("the preTool hook")}`],
      },
      prompt: { error: needs("the prompt command 'echo from a command'"), typed: true },
      profile: { error: needs("the preTurn hook of profile guarded"), typed: true },
    });
  });

  it("run them all once @ollie/sandbox is installed beside them", async () => {
    const full = projectAt(inject("consumerDir"));
    const dir = join(full.dir, "with-sandbox");
    mkdirSync(join(dir, "out"), { recursive: true });
    copyFileSync(join(lean.dir, "out", "needs-sandbox.js"), join(dir, "out", "needs-sandbox.js"));
    expect(await run({ ...full, dir })).toEqual({
      keyCmd: { value: "sk-from-a-command" },
      hook: { action: "continue", output: "allowed", warnings: [] },
      prompt: { value: "from a command" },
      profile: { value: true },
    });
  });
});
