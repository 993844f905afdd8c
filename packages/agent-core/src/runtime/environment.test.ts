import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { arch, release, tmpdir, type } from "node:os";
import { join } from "node:path";
import { ScriptedBackend } from "@ollie/backends/testing";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, tools } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import { gatherEnvironment } from "./environment.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-core-environment-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.org",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.org",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: root,
    },
  }).trim();

/** A repository with one commit, on `branch`. */
function repo(name: string, branch: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", branch);
  git(dir, "commit", "-q", "--allow-empty", "-m", "first");
  return dir;
}

/** Today as the section writes it, with the day on either side (a test may run across midnight). */
function days(): string[] {
  return [-1, 0, 1].map((d) => {
    const at = new Date(Date.now() + d * 86_400_000);
    const day = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}`;
    const weekday = at.toLocaleDateString("en-US", { weekday: "long" });
    return `${day} (${weekday})`;
  });
}

const dateOf = (preamble: string) => /^- Date: (.*)$/m.exec(preamble)?.[1];

describe("the preamble", () => {
  it("combines the system, environment, agent and tools sections, in that order", async () => {
    const dir = repo("main-repo", "feature/env");
    const backend = new ScriptedBackend({ replies: [{ text: "ok" }] });
    const agent = await Agent.create({
      backend,
      tools: tools(echoTool("read"), echoTool("grep")),
      systemPrompt: "You are Ollie.",
      environment: { cwd: dir },
      prompt: "You review code.",
    });
    const preamble = agent.runtime.preamble;
    expect(preamble).toBe(
      [
        "You are Ollie.",
        "## Environment",
        [
          `- Working directory: ${dir}`,
          `- OS: ${type()} ${release()} (${arch()})`,
          `- Date: ${dateOf(preamble)}`,
          "- Git branch: feature/env",
          "- Tools available: 2",
        ].join("\n"),
        "You review code.",
        "## Tools",
        "- read: read things\n- grep: grep things",
      ].join("\n\n"),
    );
    expect(days()).toContain(dateOf(preamble));
    // It is what the model gets as the system message.
    await agent.submit("hello");
    expect(backend.calls[0]!.messages[0]).toEqual({ role: "system", content: preamble });
  });

  it("keeps the sections it is given and nothing more", async () => {
    const backend = new ScriptedBackend();
    const system = await Agent.create({ backend, systemPrompt: "System.", prompt: "Agent." });
    expect(system.runtime.preamble).toBe("System.\n\nAgent.");
    const alone = await Agent.create({ backend, environment: { cwd: root } });
    expect(alone.runtime.preamble).toMatch(
      /^## Environment\n\n- Working directory: .*\n(- .*\n)*- Tools available: 0$/,
    );
    const plain = await Agent.create({ backend, prompt: "Agent.", tools: tools(echoTool("read")) });
    expect(plain.runtime.preamble).toBe("Agent.\n\n## Tools\n\n- read: read things");
    // A prompt that renders itself still comes after the system and environment sections.
    const rendered = await Agent.create({
      backend,
      systemPrompt: "System.",
      prompt: (list) => `Agent with ${list.length} tools.`,
      tools: tools(echoTool("read")),
    });
    expect(rendered.runtime.preamble).toBe("System.\n\nAgent with 1 tools.");
  });

  it("counts the tools again when the tool set changes", async () => {
    const set = tools();
    const load = () => {
      set.add(echoTool("file_read"));
      return "loaded file_read";
    };
    set.add(echoTool("tool_load", { run: load }));
    const backend = new ScriptedBackend({ replies: [call("tool_load"), { text: "done" }] });
    const agent = await Agent.create({ backend, tools: set, environment: { cwd: root } });
    expect(agent.runtime.preamble).toContain("- Tools available: 1");
    await agent.submit("load a tool");
    expect(agent.runtime.preamble).toContain("- Tools available: 2");
    // The request after the round that loaded it already says so.
    expect(backend.calls[1]!.messages[0]!.content).toContain("- Tools available: 2");
    expect(backend.calls[0]!.messages[0]!.content).toContain("- Tools available: 1");
  });
});

describe("the environment section", () => {
  it("names the branch from anywhere in the work tree, and says nothing of git outside one", async () => {
    const dir = repo("nested", "topic");
    const deep = join(dir, "src", "lib");
    mkdirSync(deep, { recursive: true });
    expect((await gatherEnvironment(deep)).git).toBe("topic");
    const outside = join(root, "plain");
    mkdirSync(outside);
    const facts = await gatherEnvironment(outside);
    expect(facts.git).toBeUndefined();
    expect(facts.cwd).toBe(outside);
  });

  it("follows a linked work tree's .git file, and says when HEAD is detached", async () => {
    const dir = repo("with-worktree", "main");
    const linked = join(root, "linked");
    git(dir, "worktree", "add", "-q", "-b", "side", linked);
    expect((await gatherEnvironment(linked)).git).toBe("side");
    const sha = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "--detach");
    expect((await gatherEnvironment(dir)).git).toBe(`detached HEAD at ${sha.slice(0, 7)}`);
    const agent = await Agent.create({ backend: new ScriptedBackend(), environment: { cwd: dir } });
    expect(agent.runtime.preamble).toContain(`\n- Git: detached HEAD at ${sha.slice(0, 7)}\n`);
  });

  it("shows of a planted .git file's HEAD only a ref name, and never blocks on a FIFO", async () => {
    const planted = join(root, "planted");
    const elsewhere = join(root, "elsewhere");
    mkdirSync(planted);
    mkdirSync(elsewhere);
    writeFileSync(join(planted, ".git"), `gitdir: ${elsewhere}\n`);
    writeFileSync(join(elsewhere, "HEAD"), "ref: the owner's secret words\n");
    expect((await gatherEnvironment(planted)).git).toBeUndefined();
    rmSync(join(elsewhere, "HEAD"));
    execFileSync("mkfifo", [join(elsewhere, "HEAD")]);
    expect((await gatherEnvironment(planted)).git).toBeUndefined();
  });

  it("uses this process's directory when given none", async () => {
    const agent = await Agent.create({ backend: new ScriptedBackend(), environment: {} });
    expect(agent.runtime.preamble).toContain(`- Working directory: ${process.cwd()}\n`);
  });
});
