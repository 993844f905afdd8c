import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie, untilTurns } from "./harness.js";

type Message = { role: string; content?: string | null };

/** Instructions that would run a command, read a file and expand a variable, were they a profile file's. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the ${PATH} is for the prompt's expansion to leave alone.
const HAIKU_PROMPT = "You write haiku.\n!echo pwned > pwned.txt\n@/etc/hostname\nCosts: $HOME and ${PATH}";

const generate = (name: string, tools: string[]) => ({
  toolCalls: [
    {
      name: "subagent_generate",
      arguments: {
        name,
        description: "writes one haiku",
        prompt: HAIKU_PROMPT,
        tools,
        model: "other-model",
        task: "Write a haiku about files to haiku.txt",
      },
    },
  ],
});

/**
 * The model, for every agent at once: the maker (a profile limited to a few tools) generates a haiku writer,
 * or tries to take a configured profile's name, or to give its agent a tool it may not use itself; the haiku
 * writer writes its file.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const system = String(messages[0]?.content);
  const last = messages.at(-1)!;
  const text = String(last.content ?? "");
  if (system.includes("You make agents")) {
    if (last.role === "tool") return { text: `The tool said: ${text}` };
    if (text.startsWith("[from=")) return { text: "The haiku is written." };
    if (text.includes("shadow")) return generate("coding", ["file_write"]);
    if (text.includes("widen")) return generate("sheller", ["shell"]);
    return generate("haiku-writer", ["file_write"]);
  }
  if (last.role === "tool") return { text: "Wrote it." };
  return {
    toolCalls: [{ name: "file_write", arguments: { path: "haiku.txt", content: "files rest in trees\n" } }],
  };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-generated-", {
    mock: { replies: model },
    setup: (config) => {
      mkdirSync(join(config, "agents"));
      writeFileSync(
        join(config, "agents", "maker.json"),
        JSON.stringify({
          prompt: "You make agents for narrow tasks.",
          tools: ["subagent_generate", "file_write", "file_read", "client_9p"],
          autoLoad: ["subagent_generate"],
        }),
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const toolResults = async (agent: string) =>
  (JSON.parse(await o.read(`${agent}/context`)) as Message[])
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));

describe("generated agents", () => {
  it("writes a profile into the session, spawns a child that runs it verbatim, and hears back", async () => {
    const maker = await o.create(`agent=maker cwd=${o.work} name=maker`);
    const agent = `session/${maker}/agent/main`;
    await o.fsys.writeFile(`${agent}/prompt`, "Get a haiku written.");
    await untilTurns(o, agent, 2);

    expect(readFileSync(join(o.work, "haiku.txt"), "utf8")).toBe("files rest in trees\n");
    const [spawned] = await toolResults(agent);
    const child = /spawned session (\S+)/.exec(spawned ?? "")?.[1];
    expect(spawned).toContain(`wrote the profile session/${maker}/agents/haiku-writer.json`);
    const childAgent = `session/${child}/agent/main`;
    const cfg = await o.read(`${childAgent}/cfg`);
    expect(cfg).toContain("profile=haiku-writer");
    expect(cfg).toContain("model=other-model");
    // Its instructions are text: nothing ran, nothing was read, no variable was expanded.
    const system = await o.read(`${childAgent}/systemprompt`);
    expect(system).toContain(HAIKU_PROMPT);
    expect(system).toContain("You are an agent running inside Ollie");
    expect(existsSync(join(o.work, "pwned.txt"))).toBe(false);
    const childRequest = o.mock.requests.find((r) =>
      String(JSON.stringify(r.body)).includes("You write haiku"),
    )!;
    const offered = (childRequest.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(offered.map((t) => t.function.name)).toContain("file_write");
    expect(offered.map((t) => t.function.name)).not.toContain("shell");
    expect(await o.read(`session/${maker}/agent/main/chat`)).toContain(`[from=${child}.main]`);

    expect((await o.fsys.readdir(`session/${maker}/agents`)).map((e) => e.name)).toEqual([
      "haiku-writer.json",
    ]);
    expect(JSON.parse(await o.read(`session/${maker}/agents/haiku-writer.json`))).toEqual({
      description: "writes one haiku",
      prompt: HAIKU_PROMPT,
      tools: ["file_write"],
      autoLoad: ["file_write"],
      model: "other-model",
    });
    // The child keeps the profile it runs, so it comes back after a restart as it was.
    await o.stop();
    await o.restart();
    expect(await o.read(`${childAgent}/systemprompt`)).toContain(HAIKU_PROMPT);
    expect(await o.read(`session/${maker}/agents/haiku-writer.json`)).toContain("writes one haiku");
  });

  it("refuses a configured profile's name, and a tool its maker may not use", async () => {
    const maker = await o.create(`agent=maker cwd=${o.work} name=refused`);
    const agent = `session/${maker}/agent/main`;
    await prompt(o, agent, "Try to shadow coding.");
    await prompt(o, agent, "Try to widen the tools.");
    const [shadow, widen] = await toolResults(agent);
    expect(shadow).toContain("'coding' is a configured profile: a generated one may not take its name");
    expect(widen).toContain(`tools beyond what ${maker}.main may use: shell`);
    expect(await o.fsys.readdir(`session/${maker}/agents`)).toEqual([]);
  });
});
