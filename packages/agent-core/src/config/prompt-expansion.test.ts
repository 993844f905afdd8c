import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedBackend } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ToolSet } from "../tools/tool-set.js";
import { loadAgentConfig } from "./agent-config.js";
import { profileLoader } from "./profile-loader.js";
import { resolvePrompt } from "./prompt-commands.js";
import { PromptCommandError, PromptFileError } from "./prompt-errors.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-core-prompt-")));
const agentsDir = join(root, "agents");
const ollieDir = join(root, "ollie");
mkdirSync(agentsDir);
mkdirSync(join(ollieDir, "prompts"), { recursive: true });
// Real variables of this process, as a profile's prompt sees them.
const VARIABLE = "OLLIE_PROMPT_TEST_SHELL";
const UNSET = "OLLIE_PROMPT_TEST_UNSET";
beforeAll(() => {
  process.env[VARIABLE] = "/bin/fish";
  delete process.env[UNSET];
});
afterAll(() => {
  delete process.env[VARIABLE];
  rmSync(root, { recursive: true, force: true });
});

const where = { cwd: root, ollieDir };

describe("a string prompt", () => {
  it("stays as it is when it has nothing to expand", async () => {
    expect(await resolvePrompt("Plain text: costs 5$, $5 or $ alone.\n", where)).toBe(
      "Plain text: costs 5$, $5 or $ alone.\n",
    );
  });

  it("puts a !command line's output in its place", async () => {
    const text = 'Before.\n!printf \'ran in %s with %s\\n\\n\' "$PWD" "$OLLIE"\nAfter.';
    expect(await resolvePrompt(text, where)).toBe(`Before.\nran in ${root} with ${ollieDir}\nAfter.`);
    // A space after the mark is allowed; the output is not expanded again.
    expect(await resolvePrompt("! echo '$HOME and !x'", where)).toBe("$HOME and !x");
  });

  it("puts an @file line's contents in its place: relative to the cwd, or with variables in the name", async () => {
    writeFileSync(join(root, "rules.md"), "Rule one.\nRule two.\n\n");
    writeFileSync(join(ollieDir, "prompts", "system.md"), "System from $OLLIE.\n!not a command\n");
    expect(await resolvePrompt("Rules:\n@rules.md\nEnd.", where)).toBe("Rules:\nRule one.\nRule two.\nEnd.");
    expect(await resolvePrompt("@ $OLLIE/prompts/system.md", where)).toBe(
      "System from $OLLIE.\n!not a command",
    );
    expect(await resolvePrompt(`@${join(root, "rules.md")}`, where)).toBe("Rule one.\nRule two.");
  });

  it("expands $NAME, braced or not, from the environment, unset ones to nothing", async () => {
    expect(
      await resolvePrompt(`Shell: $${VARIABLE}, again \${${VARIABLE}}; unset: [$${UNSET}]; dir: $PWD`, where),
    ).toBe(`Shell: /bin/fish, again /bin/fish; unset: []; dir: ${root}`);
    // `env` replaces this process's environment.
    expect(await resolvePrompt(`[$${VARIABLE}] [$ONLY]`, { ...where, env: { ONLY: "here" } })).toBe(
      "[] [here]",
    );
  });

  it("takes \\$, \\! and \\@ as the characters themselves", async () => {
    const text = `Cost: \\$${VARIABLE}\n\\!important\n\\@someone said $${VARIABLE}\nmid-line ! and @ stay`;
    expect(await resolvePrompt(text, where)).toBe(
      `Cost: $${VARIABLE}\n!important\n@someone said /bin/fish\nmid-line ! and @ stay`,
    );
    // Only at the start of a line are ! and @ marks; a bare ! is text.
    expect(await resolvePrompt("  !echo no\n!\n@", where)).toBe("  !echo no\n!\n@");
  });

  it("fails on a command that fails and on a file that cannot be read, naming them", async () => {
    const failed = await resolvePrompt("ok\n!echo 'no template' >&2; exit 4", where).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(PromptCommandError);
    expect((failed as Error).message).toBe(
      "prompt command 'echo 'no template' >&2; exit 4' failed (exit status 4): no template",
    );
    const missing = await resolvePrompt("@missing.md", where).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PromptFileError);
    expect((missing as Error).message).toBe(`prompt file '${join(root, "missing.md")}' does not exist`);
    await expect(resolvePrompt("@ollie", where)).rejects.toThrow(`prompt file '${ollieDir}' is a directory`);
  });
});

describe("a profile's systemPrompt and prompt", () => {
  const load = profileLoader({
    agentsDir,
    backend: async () => new ScriptedBackend({ model: "main-model" }),
    tools: async () => new ToolSet([]),
    prompt: { ollieDir },
  });
  const profile = (name: string, body: unknown) =>
    writeFileSync(join(agentsDir, `${name}.json`), JSON.stringify(body));

  it("are read as the system and agent sections, around the environment", async () => {
    writeFileSync(join(ollieDir, "prompts", "base.md"), "You are Ollie.\n");
    profile("layered", {
      systemPrompt: `@$OLLIE/prompts/base.md\nShell: $${VARIABLE}`,
      prompt: ["echo 'You write tests.'"],
    });
    expect((await loadAgentConfig(agentsDir, "layered")).systemPrompt).toContain("@$OLLIE");
    const spec = await load("layered", { cwd: root });
    expect(spec.systemPrompt).toBe("You are Ollie.\nShell: /bin/fish");
    expect(spec.prompt).toBe("You write tests.\n");
    const agent = await Agent.create(spec);
    expect(agent.runtime.preamble).toMatch(
      new RegExp(
        `^You are Ollie\\.\\nShell: /bin/fish\\n\\n## Environment\\n\\n- Working directory: ${root}\\n[\\s\\S]*- Tools available: 0\\n\\nYou write tests\\.\\n$`,
      ),
    );
  });

  it("take commands as an array too, and are refused when neither text nor commands", async () => {
    profile("commands", { systemPrompt: ["echo one", "echo two"] });
    expect((await load("commands", { cwd: root })).systemPrompt).toBe("one\ntwo\n");
    profile("wrong", { systemPrompt: 3 });
    await expect(load("wrong", { cwd: root })).rejects.toThrow("systemPrompt");
  });

  it("are read again after a compaction when they run commands or read files", async () => {
    const rules = join(root, "live-rules.md");
    writeFileSync(rules, "Rule as it was.");
    profile("live", {
      systemPrompt: "@live-rules.md",
      prompt: "!printf 'agent %s' \"$(cat live-rules.md)\"",
    });
    const spec = await load("live", { cwd: root });
    profile("still", { systemPrompt: "Fixed.", prompt: "Also $PWD." });
    const fixed = await load("still", { cwd: root });
    expect(fixed.reloadPrompt).toBeUndefined();
    expect(fixed.reloadSystemPrompt).toBeUndefined();
    expect(fixed.prompt).toBe(`Also ${root}.`);

    const summary = JSON.stringify({ objective: "keep the rules" });
    const backend = new ScriptedBackend({ replies: [{ text: "ok" }, { text: summary }] });
    const agent = await Agent.create({ ...spec, backend, compaction: { hotMessages: 1 } });
    expect(agent.runtime.preamble).toMatch(
      /^Rule as it was\.\n\n## Environment[\s\S]*\n\nagent Rule as it was\.$/,
    );
    await agent.submit("hello");
    writeFileSync(rules, "Rule as it is now.");
    expect(await agent.compact()).toBe(true);
    expect(agent.runtime.preamble).toMatch(
      /^Rule as it is now\.\n\n## Environment[\s\S]*\n\nagent Rule as it is now\.$/,
    );
  });
});
