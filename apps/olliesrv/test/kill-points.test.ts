import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { INTERRUPTED_RESULT, INTERRUPTED_TURN, RESTART_RESULT } from "@ollie/agent-core/sessions";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

/**
 * kill -9 of olliesrv at each point of a turn: in round 1, in round 3, and between a reply and its tools.
 * Each point is reached for certain: the tool (or the preTool hook) blocks reading a FIFO, and the test's
 * open of that FIFO for writing returns once the reader has it open — the call is running. Every completed
 * round must come back, the running call answered as interrupted by a restart, and one mark in the chat.
 */

let o: Ollie;
const gates = { round1: "", round3: "", hook: "" };

beforeAll(async () => {
  o = await startOllie("olliesrv-kill-points-", {
    setup: (config) => {
      mkdirSync(join(config, "agents"), { recursive: true });
      writeFileSync(
        join(config, "agents", "guarded.json"),
        JSON.stringify({
          description: "Every call waits for its preTool hook",
          autoLoad: ["file_write", "shell"],
          hooks: { preTool: `read word < ${join(config, "..", "..", "hook-gate")}` },
        }),
      );
    },
  });
  gates.round1 = join(o.work, "gate-1");
  gates.round3 = join(o.work, "gate-3");
  gates.hook = join(o.root, "hook-gate");
  for (const gate of Object.values(gates)) await execa("mkfifo", [gate]);
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

/** Resolves once a process has `fifo` open for reading; the handle keeps it blocked until it is closed. */
const reading = (fifo: string) => open(fifo, "w");

interface Saved {
  role: string;
  content: string;
  toolCalls?: Array<{ name: string }>;
}

const savedHistory = (id: string): Saved[] =>
  (
    JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8")) as {
      agents: Array<{ session: { messages: Saved[] } }>;
    }
  ).agents[0]!.session.messages;

const marks = (chat: string) => chat.split(INTERRUPTED_TURN).length - 1;

describe("kill -9 of olliesrv mid-turn, then a restart", () => {
  it("keeps every completed round wherever the turn was, answers the running call, and marks the turn once", async () => {
    // In round 1: its call runs.
    const first = await o.create(`agent=coding cwd=${o.work} name=round-1`);
    o.mock.enqueue({
      text: "Waiting for the gate.",
      toolCalls: [{ name: "shell", arguments: { command: "echo ran > ran-1.txt; read word < gate-1" } }],
    });
    await o.fsys.writeFile(`session/${first}/agent/main/prompt`, "Wait at gate 1");
    const gate1 = await reading(gates.round1);

    // In round 3: rounds 1 and 2 are done, round 3's call runs.
    const third = await o.create(`agent=coding cwd=${o.work} name=round-3`);
    o.mock.enqueue(
      { toolCalls: [{ name: "file_write", arguments: { path: "one.txt", content: "1" } }] },
      { text: "Now two.", toolCalls: [{ name: "file_write", arguments: { path: "two.txt", content: "2" } }] },
      { toolCalls: [{ name: "shell", arguments: { command: "echo ran > ran-3.txt; read word < gate-3" } }] },
    );
    await o.fsys.writeFile(`session/${third}/agent/main/prompt`, "Write two files, then wait at gate 3");
    const gate3 = await reading(gates.round3);

    // Between a reply and its tools: the preTool hook holds the call before it starts.
    const between = await o.create(`agent=guarded cwd=${o.work} name=between`);
    o.mock.enqueue({
      text: "I will write it.",
      toolCalls: [{ name: "file_write", arguments: { path: "never.txt", content: "no" } }],
    });
    await o.fsys.writeFile(`session/${between}/agent/main/prompt`, "Write never.txt");
    const hook = await reading(gates.hook);

    await o.crash();
    await Promise.all([gate1.close(), gate3.close(), hook.close()]);
    await o.restart();

    const interrupted = { role: "tool", content: RESTART_RESULT };
    const mark = { role: "assistant", content: INTERRUPTED_TURN };
    expect(savedHistory(first)).toMatchObject([
      { role: "user", content: "Wait at gate 1" },
      { role: "assistant", content: "Waiting for the gate.", toolCalls: [{ name: "shell" }] },
      interrupted,
      mark,
    ]);
    expect(readFileSync(join(o.work, "ran-1.txt"), "utf8")).toBe("ran\n");
    expect(savedHistory(third)).toMatchObject([
      { role: "user" },
      { role: "assistant", toolCalls: [{ name: "file_write" }] },
      { role: "tool", content: `created ${join(o.work, "one.txt")} (1 bytes)\n` },
      { role: "assistant", content: "Now two.", toolCalls: [{ name: "file_write" }] },
      { role: "tool", content: `created ${join(o.work, "two.txt")} (1 bytes)\n` },
      { role: "assistant", toolCalls: [{ name: "shell" }] },
      interrupted,
      mark,
    ]);
    expect(readFileSync(join(o.work, "ran-3.txt"), "utf8")).toBe("ran\n");
    expect(savedHistory(between)).toMatchObject([
      { role: "user" },
      { role: "assistant", content: "I will write it.", toolCalls: [{ name: "file_write" }] },
      interrupted,
      mark,
    ]);
    expect(existsSync(join(o.work, "never.txt"))).toBe(false);

    const chats = await Promise.all(
      [first, third, between].map((id) => o.read(`session/${id}/agent/main/chat`)),
    );
    for (const chat of chats) {
      expect(marks(chat)).toBe(1);
      expect(chat).toMatch(/← \w+ failed: \[interrupted by a restart: /);
    }
    expect(chats[1]).toContain('→ file_write {"path":"one.txt"');
    expect(chats[1]).toContain("Now two.");
    // Everything after the prompt came back from the journals: three rounds and two results for the third.
    for (const [id, entries] of [
      [first, 1],
      [third, 5],
      [between, 1],
    ] as const) {
      await o.logged(`session ${id}: took ${entries} round(s) and result(s) back from its journal`);
      await o.logged(`session ${id}: answered 2 cut-off call(s) or turn(s) as interrupted`);
    }

    // The restored agent carries on: its next request is valid, and nothing is marked again.
    o.mock.enqueue({ text: "The gate is gone; I stop here." });
    await prompt(o, `session/${third}/agent/main`, "Carry on");
    expect(await o.read(`session/${third}/agent/main/outcome`)).toBe("done\n");
    expect(marks(await o.read(`session/${third}/agent/main/chat`))).toBe(1);
  });

  it("after SIGTERM mid-call, the turn interrupted by the stop is marked cut off, once", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=stopped`);
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "read word < gate-1" } }] });
    await o.fsys.writeFile(`session/${id}/agent/main/prompt`, "Wait at gate 1 again");
    const gate = await reading(gates.round1);
    await o.stop();
    await gate.close();
    await o.restart();
    expect(savedHistory(id)).toMatchObject([
      { role: "user" },
      { role: "assistant", toolCalls: [{ name: "shell" }] },
      { role: "tool", content: INTERRUPTED_RESULT },
      { role: "assistant", content: INTERRUPTED_TURN },
    ]);
    expect(marks(await o.read(`session/${id}/agent/main/chat`))).toBe(1);
  });
});
