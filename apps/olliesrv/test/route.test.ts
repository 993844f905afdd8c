import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

type Message = { role: string; content?: string | null };

/**
 * The model, for every agent at once: the asker routes a request (with a cheaper model for the router, or
 * among two profiles); the router answers the way small models do — the name dressed up in quotes and a
 * full stop, or something that names no profile at all.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  const text = String(last.content ?? "");
  if (String(messages[0]?.content).includes("You choose which agent profile"))
    return { text: text.includes("failing test") ? "`coding`." : "I would rather not choose." };
  if (last.role === "tool") return { text: `Routed: ${text}` };
  if (text.includes("parser"))
    return {
      toolCalls: [
        { name: "route", arguments: { prompt: "Fix the failing test in parser.ts", model: "other-model" } },
      ],
    };
  return {
    toolCalls: [
      { name: "route", arguments: { prompt: "Say something odd", profiles: ["coding", "cascade"] } },
    ],
  };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-route-", {
    mock: { replies: model },
    setup: (config) => {
      mkdirSync(join(config, "agents"));
      writeFileSync(
        join(config, "agents", "asker.json"),
        JSON.stringify({ prompt: "You ask.", autoLoad: ["route"] }),
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const lastToolResult = async (agent: string) =>
  String(
    (JSON.parse(await o.read(`${agent}/context`)) as Message[]).filter((m) => m.role === "tool").at(-1)
      ?.content,
  );

describe("route", () => {
  it("lists the profiles with what each is for", async () => {
    const lines = (await o.read("profiles")).trim().split("\n");
    expect(lines).toContain("asker\t-");
    expect(lines).toContain("coding\tEdits code in the working directory, runs commands and tests");
    expect(lines).toContain(
      "router\tChooses the profile for a request, for the route tool; give it a cheap, fast model",
    );
    expect(lines.map((l) => l.split("\t")[0])).toEqual([...lines.map((l) => l.split("\t")[0])].sort());
  });

  it("asks a short-lived router session which profile fits, on the model given, and answers its name", async () => {
    const asker = await o.create(`agent=asker cwd=${o.work} name=asker`);
    const agent = `session/${asker}/agent/main`;
    await prompt(o, agent, "Which profile should fix the parser?");
    expect(await lastToolResult(agent)).toBe(
      "coding\nEdits code in the working directory, runs commands and tests\n",
    );

    const asked = o.mock.requests.find((r) =>
      String(JSON.stringify(r.body)).includes("You choose which agent"),
    )!;
    const body = asked.body as { model: string; messages: Message[] };
    expect(body.model).toBe("other-model");
    const question = String(body.messages.at(-1)?.content);
    expect(question).toContain("coding: Edits code in the working directory, runs commands and tests\n");
    expect(question).toContain("cascade: Asks several agents or models the same thing at once");
    expect(question).not.toContain("router:");
    expect(question).toContain("Request:\nFix the failing test in parser.ts");
    // The router's session ended with the call.
    expect((await o.read("session/idx")).trim().split("\n")).toHaveLength(1);
  });

  it("says what the router answered when it names none of the profiles", async () => {
    const asker = await o.create(`agent=asker cwd=${o.work} name=odd`);
    const agent = `session/${asker}/agent/main`;
    await prompt(o, agent, "Route something odd.");
    expect(await lastToolResult(agent)).toContain(
      "the router answered 'I would rather not choose.', which names none of: coding, cascade",
    );
  });
});
