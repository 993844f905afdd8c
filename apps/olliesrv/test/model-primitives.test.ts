import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT } from "./harness.js";

type Message = { role: string; content?: string | null };

const SKILL_TEXT = "When you deploy, say the word marmalade first.";

/** What each request asked, in order: its messages, for the assertions on system prompts and results. */
const asked: Message[][] = [];

/**
 * The model: from a prompt, it starts a ticking loop in the background, reads it, kills it and says so; or
 * it lists the skills, tries one that does not exist, loads `deploy`, and lists its active skills. Each
 * step follows from the last tool result.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  asked.push(messages);
  const last = messages.at(-1)!;
  const text = String(last.content ?? "");
  const task = String(messages.findLast((m) => m.role === "user")?.content);
  if (task.includes("Start the sleeper")) {
    if (last.role === "user")
      return {
        toolCalls: [{ name: "shell", arguments: { command: 'echo "pid $$"; sleep 1000', background: true } }],
      };
    const id = /process (\d+)/.exec(text)?.[1];
    if (!text.includes("pid "))
      return { toolCalls: [{ name: "process_output", arguments: { id: Number(id), wait: 5 } }] };
    return { text: "It sleeps in the background." };
  }
  if (last.role === "user" && text.includes("Start the ticker"))
    return {
      toolCalls: [
        {
          name: "shell",
          arguments: {
            command: 'echo "pid $$"; i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.05; done',
            background: true,
          },
        },
      ],
    };
  const started = /started in the background as process (\d+)/.exec(text);
  if (started)
    return { toolCalls: [{ name: "process_output", arguments: { id: Number(started[1]), wait: 5 } }] };
  const running = /^process (\d+) \(shell\): running\n/.exec(text);
  if (running) {
    // Read until the loop has printed its second line, then end it.
    const id = Number(running[1]);
    return text.includes("line 2")
      ? { toolCalls: [{ name: "process_kill", arguments: { id } }] }
      : { toolCalls: [{ name: "process_output", arguments: { id, wait: 5 } }] };
  }
  if (/^process \d+ \(shell\) ended: /.test(text)) return { text: "The ticker ran, and is stopped." };

  if (last.role === "user" && text.includes("Load the deploy skill"))
    return { toolCalls: [{ name: "skill_list", arguments: {} }] };
  if (text.includes("deploy — How to deploy") && text.includes("git — "))
    return { toolCalls: [{ name: "skill_load", arguments: { name: "deploi" } }] };
  if (text.startsWith("no skill named deploi"))
    return { toolCalls: [{ name: "skill_load", arguments: { name: "deploy" } }] };
  if (text.startsWith("loaded the skill deploy"))
    return { toolCalls: [{ name: "skill_active", arguments: {} }] };
  if (text === "deploy — How to deploy this project.\n") return { text: "The deploy skill is loaded." };
  return { text: `unexpected: ${text}` };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-primitives-", {
    mock: { replies: model },
    setup: (config) => {
      mkdirSync(join(config, "skills"));
      writeFileSync(
        join(config, "skills", "deploy.md"),
        `---\nname: deploy\ndescription: How to deploy this project.\n---\n${SKILL_TEXT}\n`,
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const toolResults = (messages: Message[]) =>
  messages.filter((m) => m.role === "tool").map((m) => String(m.content));

describe("the model's own primitives, end to end", () => {
  it("starts a shell command in the background, reads its output, and kills it", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=ticker`);
    const agent = `session/${id}/agent/main`;
    asked.length = 0;
    await prompt(o, agent, "Start the ticker, read it, and stop it.");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");

    const results = toolResults(asked.at(-1)!);
    expect(results[0]).toMatch(
      /^started in the background as process \d+; read its output with process_output, end it with process_kill\n$/,
    );
    const proc = Number(/process (\d+)/.exec(results[0]!)![1]);
    // The model read on until it had seen the second line.
    expect(results.slice(1, -1).join("")).toContain("line 2");
    expect(results.at(-1)).toBe(
      `process ${proc} (shell) ended: cancelled. Its output can still be read with process_output.\n`,
    );
    expect(asked.at(-1)!.at(-1)).toMatchObject({ role: "tool" });

    // The loop and everything it started are gone, and the agent's proc/ keeps what it printed and how it ended.
    // (proc/idx asks toolsrv afresh; the directory lists what was last asked.)
    const idx = await o.read(`${agent}/proc/idx`);
    expect(idx).toMatch(new RegExp(`^${proc}\\tshell\\tcancelled\\t`, "m"));
    const printed = await o.read(`${agent}/proc/${proc}/output`);
    expect(printed).toMatch(/^pid \d+\nline 1\nline 2\n/);
    const pid = Number(/pid (\d+)/.exec(printed)![1]);
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    expect(await o.read(`${agent}/chat`)).toContain("The ticker ran, and is stopped.");
  });

  it("ends what an agent left running in the background when its session is killed", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=sleeper`);
    const agent = `session/${id}/agent/main`;
    asked.length = 0;
    await prompt(o, agent, "Start the sleeper.");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    const read = String(asked.at(-1)!.at(-1)?.content);
    expect(read).toMatch(/^process \d+ \(shell\): running\npid \d+\n/);
    const pid = Number(/pid (\d+)/.exec(read)![1]);
    expect(processGone(pid)).toBe(false);

    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
  });

  it("lists the skills, loads one — in the system prompt from the next request — and lists it as active", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=skills`);
    const agent = `session/${id}/agent/main`;
    asked.length = 0;
    await prompt(o, agent, "Load the deploy skill.");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");

    // Each result as the model first saw it (cold ones are collapsed in later requests).
    const [listed, unknown, loaded, active] = asked.slice(1).map((m) => String(m.at(-1)?.content));
    expect(listed).toContain("deploy — How to deploy this project.\n");
    expect(listed).toContain("git — Inspect, commit and review changes with git.\n");
    expect(unknown).toMatch(/^no skill named deploi: the skills are .*\bdeploy\b/);
    expect(loaded).toBe(
      "loaded the skill deploy: its instructions are in your system prompt from your next request on\n",
    );
    expect(active).toBe("deploy — How to deploy this project.\n");

    // Every request up to the load had the plain system prompt; every one after it has the skill.
    const system = asked.map((messages) => String(messages[0]?.content));
    expect(asked).toHaveLength(5);
    for (const s of system.slice(0, 3)) expect(s).not.toContain(SKILL_TEXT);
    for (const s of system.slice(3)) expect(s).toContain(`## Skill: deploy\n\n${SKILL_TEXT}`);

    expect(await o.read(`${agent}/skills`)).toContain("* deploy\tHow to deploy this project.\n");
    expect(await o.read(`${agent}/systemprompt`)).toContain(SKILL_TEXT);
    expect((await o.read(`${agent}/tools`)).split("\n").slice(0, 3)).toEqual([
      "skill_list\tList the skills you can load, one per line: name, then what it is for ((loaded) after the ones you have).",
      "skill_load\tLoad a skill by name (see skill_list): its instructions join your system prompt from your next request on.",
      "skill_active\tList the skills you have loaded, one per line: name, then what it is for.",
    ]);
  });
});
