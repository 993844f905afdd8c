import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INTERRUPTED_TURN, RESTART_RESULT } from "@ollie/agent-core/sessions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie, untilTurns, watchStates } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-restart-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

describe("restarting olliesrv", () => {
  it("after kill -9, brings a session back with every completed round; a corrupt file is moved aside", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=survivor`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "file_write", arguments: { path: "one.txt", content: "1" } }] },
      { text: "Wrote one.txt." },
    );
    await prompt(o, agent, "Write one.txt");
    const before = await o.read(`${agent}/chat`);
    const dataDir = join(o.root, "data", "ollie", "sessions");
    writeFileSync(join(dataDir, "1796000000000000000-bad000.json"), "{ this is not JSON");

    await o.crash();
    await o.restart();

    expect(o.log()).toMatch(
      /unreadable session file .*1796000000000000000-bad000\.json:.*; moved it to .*corrupt/,
    );
    expect(
      readdirSync(join(dataDir, "corrupt")).some((f) => f.startsWith("1796000000000000000-bad000.")),
    ).toBe(true);
    expect(await o.read("session/idx")).toContain(`${id}\tsurvivor\tidle\t${o.work}\n`);
    expect(await o.read(`${agent}/chat`)).toBe(before);
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string }>;
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);

    o.mock.enqueue({ text: "Still here." });
    await prompt(o, agent, "Are you there?");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    const request = o.mock.lastRequest!.body as { messages: Array<{ role: string }> };
    expect(request.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });

  it("quarantines a session whose saved history is malformed inside, and brings back those around it", async () => {
    const dataDir = join(o.root, "data", "ollie", "sessions");
    const ids: string[] = [];
    for (const name of ["before", "damaged", "after"]) {
      const id = await o.create(`cwd=${o.work} name=${name}`);
      o.mock.enqueue({ text: `Hello from ${name}.` });
      await prompt(o, `session/${id}/agent/main`, "Hello");
      ids.push(id);
    }
    await o.crash();
    const file = join(dataDir, `${ids[1]}.json`);
    const saved = JSON.parse(readFileSync(file, "utf8")) as {
      agents: Array<{ session: { messages: Array<{ content: unknown }> } }>;
    };
    saved.agents[0]!.session.messages[0]!.content = { not: "text" };
    writeFileSync(file, JSON.stringify(saved));
    await o.restart();

    expect(o.log()).toMatch(
      new RegExp(
        `unreadable session file .*${ids[1]}\\.json:1:\\d+: agents\\[0\\]\\.session\\.messages\\[0\\]\\.content: .*; moved it to .*corrupt`,
      ),
    );
    expect(existsSync(file)).toBe(false);
    const idx = await o.read("session/idx");
    expect(idx).toContain(`${ids[0]}\tbefore\t`);
    expect(idx).toContain(`${ids[2]}\tafter\t`);
    expect(idx).not.toContain(ids[1]);
    expect(await o.read(`session/${ids[2]}/agent/main/chat`)).toContain("Hello from after.");
  });

  it("brings back a session that was never prompted with its agent, and quarantines ids that are not ids", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=unprompted`);
    const dataDir = join(o.root, "data", "ollie", "sessions");
    const saved = JSON.parse(readFileSync(join(dataDir, `${id}.json`), "utf8")) as { id: string };
    const forged = { "slash.json": "a/b", "climb.json": "../../../../escaped", "other.json": `${id}x` };
    for (const [file, forgedId] of Object.entries(forged)) {
      writeFileSync(join(dataDir, file), JSON.stringify({ ...saved, id: forgedId }));
    }

    await o.crash();
    await o.restart();

    expect(await o.read(`session/${id}/agent/main/state`)).toBe("idle\n");
    expect(await o.read("session/idx")).toContain(`${id}\tunprompted\tidle\t${o.work}\n`);
    for (const file of Object.keys(forged)) {
      expect(o.log()).toMatch(new RegExp(`unreadable session file .*${file.replace(".", "\\.")}`));
    }
    expect(readdirSync(dataDir).filter((f) => f.endsWith(".json"))).not.toContain("slash.json");
    expect((await o.fsys.readdir("session")).map((e) => e.name)).toContain(id);
    await o.stop();
    expect(existsSync(join(o.root, "escaped.json"))).toBe(false);
    expect(existsSync(join(dataDir, "..", "..", "..", "..", "escaped.json"))).toBe(false);
    await o.restart();
  });

  it("after kill -9 in the middle of a round, shows the round as interrupted and runs the prompt that waited", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=crashing`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 30" } }] });
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Run the long thing");
    await states.until("calling: shell");
    // Taken while the first turn runs: when this write returns, the prompt is on disk.
    await o.fsys.writeFile(`${agent}/prompt`, "Then say hello");

    await o.crash();
    o.mock.enqueue({ text: "Hello, after the restart." });
    await o.restart();

    await untilTurns(o, agent, 1);
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string; content: string }>;
    expect(history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(history[2]!.content).toBe(RESTART_RESULT);
    expect(history[3]!.content).toBe(INTERRUPTED_TURN);
    expect(history[4]!.content).toBe("Then say hello");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toMatch(/← shell failed: \[interrupted by a restart: /);
    expect(chat).toMatch(/» Then say hello\n\nHello, after the restart\./);
  });
});
