import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedBackend } from "@ollie/backends/testing";
import { afterAll, describe, expect, it } from "vitest";
import { echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { AgentBusyError } from "../agent/errors.js";
import { ToolSet } from "../tools/tool-set.js";
import { AgentConfigError, generationParams, loadAgentConfig } from "./agent-config.js";
import { profileLoader } from "./profile-loader.js";
import { resolvePrompt } from "./prompt-commands.js";
import { PromptCommandError } from "./prompt-errors.js";

const root = mkdtempSync(join(tmpdir(), "agent-core-config-"));
const agentsDir = join(root, "agents");
mkdirSync(agentsDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const profile = (name: string, body: unknown) =>
  writeFileSync(join(agentsDir, `${name}.json`), typeof body === "string" ? body : JSON.stringify(body));

describe("agent profiles", () => {
  it("read a good file, with its generation parameters", async () => {
    profile("coding", {
      prompt: ["echo one", "echo two"],
      userPrompts: ["Be brief."],
      backend: "claude",
      model: "claude-sonnet-4-5",
      tools: ["file_read", "shell"],
      autoLoad: ["file_read"],
      maxSteps: 30,
      compactionModel: "claude-haiku-4-5",
      hooks: { turnError: "freeloader", postTool: ["a", "b"] },
      temperature: 0.7,
      maxTokens: 8192,
      reasoningBudget: 2048,
    });
    const config = await loadAgentConfig(agentsDir, "coding");
    expect(config.maxSteps).toBe(30);
    expect(generationParams(config)).toEqual({ temperature: 0.7, maxTokens: 8192, reasoningBudget: 2048 });
  });

  it.each([
    ["an unknown key", { prompt: "x", maxStep: 3 }, "maxStep: unknown key"],
    ["a wrong type", { maxSteps: "many" }, "maxSteps: Invalid input: expected number, received string"],
    ["a bad value", { temperature: 7 }, "temperature: Too big"],
    ["an unknown hook", { hooks: { onBoot: "x" } }, "hooks.onBoot"],
    ["an empty prompt command", { prompt: ["echo", ""] }, "prompt"],
    ["not JSON", "{ prompt: ", "not JSON"],
  ])("name the file and the key for %s", async (_what, body, message) => {
    profile("bad", body);
    const err = await loadAgentConfig(agentsDir, "bad").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentConfigError);
    // Every problem is placed in the file: FILE:LINE:COLUMN.
    expect((err as Error).message.startsWith(`${join(agentsDir, "bad.json")}:`)).toBe(true);
    expect((err as Error).message.slice(join(agentsDir, "bad.json").length)).toMatch(/^:\d+:\d+: /);
    expect((err as Error).message).toContain(message);
  });

  it("refuse a missing profile and a name that is a path", async () => {
    await expect(loadAgentConfig(agentsDir, "nobody")).rejects.toThrow("no such profile");
    await expect(loadAgentConfig(agentsDir, "../etc/passwd")).rejects.toThrow("not a profile name");
  });
});

describe("prompt commands", () => {
  const where = { cwd: root, ollieDir: "/etc/ollie-test", env: { PATH: process.env.PATH } };

  it("concatenate the output of each command, run with $OLLIE and $PWD", async () => {
    expect(await resolvePrompt(["printf 'cfg=%s\\n' \"$OLLIE\"", "printf 'cwd=%s\\n' \"$PWD\""], where)).toBe(
      `cfg=/etc/ollie-test\ncwd=${root}\n`,
    );
    expect(await resolvePrompt("literal text", where)).toBe("literal text");
  });

  it("fail with the command and its stderr, or its timeout", async () => {
    const failed = await resolvePrompt(["echo fine", "echo 'no template' >&2; exit 3"], where).catch(
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(PromptCommandError);
    expect((failed as Error).message).toBe(
      "prompt command 'echo 'no template' >&2; exit 3' failed (exit status 3): no template",
    );
    await expect(resolvePrompt(["sleep 5"], { ...where, timeoutMs: 100 })).rejects.toThrow(
      "did not finish within 0.1 s",
    );
  });
});

describe("switching profile", () => {
  it("loads the profile, gives the agent a fresh tool executor, closes the old one and clears the history", async () => {
    profile("reviewer", {
      prompt: ["echo You review code."],
      model: "reviewer-model",
      compactionModel: "small-model",
      maxSteps: 5,
      temperature: 0.2,
    });
    let closed = 0;
    const old = Object.assign(tools(echoTool("read")), {
      close: async () => {
        closed++;
      },
    });
    const { agent } = await scriptedAgent([{ text: "hi" }], {
      tools: old,
      cwd: root,
      profiles: profileLoader({
        agentsDir,
        backend: async () => new ScriptedBackend({ replies: [{ text: "Looks good." }] }),
        tools: async () => new ToolSet([echoTool("diff")]),
        prompt: { ollieDir: root, env: { PATH: process.env.PATH } },
      }),
    });
    await agent.submit("hello");
    await agent.switchProfile("reviewer");
    expect(agent.profile).toBe("reviewer");
    expect(agent.history).toEqual([]);
    expect(closed).toBe(1);
    expect(agent.runtime.backend.model).toBe("reviewer-model");
    expect(agent.runtime.preamble).toMatch(
      /^## Environment\n\n[\s\S]*\n\nYou review code\.\n\n\n## Tools\n\n- diff: diff things$/,
    );
    expect(agent.runtime.maxSteps).toBe(5);
    // An agent made from a profile is Ollie's agent: the loop's guidance is on (a bare Agent's is off).
    expect(agent.runtime.guidance).toBe(true);
    expect(agent.runtime.spec.compactionBackend?.model).toBe("small-model");
    expect(await agent.runtime.spec.reloadPrompt?.()).toBe("You review code.\n");
    expect((await agent.submit("review this")).reply?.content).toBe("Looks good.");
  });

  it("takes the profile's config from the caller when it supplies one, instead of the file", async () => {
    profile("kept", { prompt: "As the file says now.", model: "file-model" });
    const load = profileLoader({
      agentsDir,
      config: async (name) => ({ prompt: `As kept for ${name}.`, model: "kept-model" }),
      backend: async () => new ScriptedBackend(),
      tools: async () => new ToolSet([]),
      prompt: { ollieDir: root, env: { PATH: process.env.PATH } },
    });
    const spec = await load("kept", { cwd: root });
    expect(spec.prompt).toBe("As kept for kept.");
    expect(spec.backend.model).toBe("kept-model");
  });

  it("runs prompt commands in commandsCwd while the agent's directory is elsewhere (on another machine)", async () => {
    const elsewhere = "/no/such/dir/on/this/machine";
    const load = profileLoader({
      agentsDir,
      config: async () => ({ prompt: ["pwd"] }),
      backend: async () => new ScriptedBackend(),
      tools: async () => new ToolSet([]),
      prompt: { ollieDir: root, env: { PATH: process.env.PATH } },
      commandsCwd: root,
    });
    const spec = await load("remote", { cwd: elsewhere });
    expect(spec.prompt).toBe(`${root}\n`);
    expect(spec.environment).toEqual({ cwd: elsewhere });
  });

  it("holds the agent to the profile's budget, unless the agent's own spending gate holds it", async () => {
    profile("frugal", { prompt: "Be brief.", budget: { tokens: 100 } });
    const spent = { text: "A long reply.", usage: { input: 80, output: 40 } };
    const loader = () =>
      profileLoader({
        agentsDir,
        backend: async () => new ScriptedBackend({ replies: [spent, spent] }),
        tools: async () => new ToolSet([]),
        prompt: { ollieDir: root, env: { PATH: process.env.PATH } },
      });
    const { agent } = await scriptedAgent([], { cwd: root, profiles: loader() });
    await agent.switchProfile("frugal");
    expect((await agent.submit("one")).status).toBe("done");
    const second = await agent.submit("two");
    expect(second).toMatchObject({
      status: "budget",
      reason: "this agent's budget: 100 tokens are spent (120)",
    });

    const own = await scriptedAgent([], {
      cwd: root,
      profiles: loader(),
      spending: { beforeRequest: () => undefined },
    });
    await own.agent.switchProfile("frugal");
    await own.agent.submit("one");
    expect((await own.agent.submit("two")).status).toBe("done");
  });

  it("is refused while a turn runs", async () => {
    const { agent } = await scriptedAgent([{ text: "slow", delayMs: 30 }], {
      profiles: async () => ({ backend: new ScriptedBackend() }),
    });
    const turn = agent.submit("go");
    await expect(agent.switchProfile("other")).rejects.toThrow(AgentBusyError);
    await turn;
  });
});
