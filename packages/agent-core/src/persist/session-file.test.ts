import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedBackend } from "@ollie/backends/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import { INTERRUPTED_TURN, RESTART_RESULT } from "../history/history.js";
import type { PersistedSession } from "./persisted-session.js";
import { loadSession, SessionFileError, saveSession } from "./session-file.js";
import { newSessionId } from "./session-id.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-sessions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const session = (messages: PersistedSession["messages"]): PersistedSession => ({
  version: 1,
  id: newSessionId(),
  agentId: "glenda",
  name: "glenda",
  agent: "coding",
  messages,
  taskState: { objective: "fix the build", constraints: ["no new dependencies"] },
  usage: {
    inputTokens: 10,
    outputTokens: 5,
    cachedInputTokens: 0,
    cacheCreationTokens: 0,
    requests: 1,
    costUsd: 0.01,
  },
  savedAt: new Date(0).toISOString(),
});

describe("session files", () => {
  it("are written whole, private, and read back exactly", async () => {
    const file = join(dir, "a", "s.json");
    const saved = session([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ]);
    await saveSession(file, saved);
    await saveSession(file, saved);
    expect(readdirSync(join(dir, "a"))).toEqual(["s.json"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await loadSession(file)).toEqual({ session: saved, repaired: 0 });
  });

  it("that are broken are refused with the file and what is wrong", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "{ not json");
    await expect(loadSession(file)).rejects.toThrow(SessionFileError);
    await expect(loadSession(file)).rejects.toThrow(`${file}:1:3: not JSON: expected a key in double quotes`);
    writeFileSync(file, JSON.stringify({ ...session([]), messages: [{ role: "robot", content: "beep" }] }));
    await expect(loadSession(file)).rejects.toThrow(`${file}:1:`);
    await expect(loadSession(file)).rejects.toThrow(/: messages\[0\]\.role: /);
    await expect(loadSession(join(dir, "missing.json"))).rejects.toThrow(
      "missing.json: no such session file",
    );
  });

  it("with calls left unanswered get interrupted results, and the repair is saved", async () => {
    const file = join(dir, "crashed.json");
    await saveSession(
      file,
      session([
        { role: "user", content: "check both" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "c1", name: "read", arguments: { path: "a" } },
            { id: "c2", name: "shell", arguments: { cmd: "make" } },
          ],
        },
        { role: "tool", toolCallId: "c1", name: "read", content: "contents of a" },
      ]),
    );
    const { session: loaded, repaired } = await loadSession(file);
    expect(repaired).toBe(1);
    expect(loaded.messages.slice(2)).toEqual([
      { role: "tool", toolCallId: "c1", name: "read", content: "contents of a" },
      { role: "tool", toolCallId: "c2", name: "shell", content: RESTART_RESULT, isError: true },
    ]);
    expect(JSON.parse(readFileSync(file, "utf8")).messages).toHaveLength(4);
    expect((await loadSession(file)).repaired).toBe(0);
  });
});

describe("persistence of an agent", () => {
  it("without a journal, saves as the turn begins, before each round's calls, as each call ends, after the round and at the end", async () => {
    const saves: PersistedSession[] = [];
    const { agent } = await scriptedAgent(
      [call("read", { path: "a" }), call("read", { path: "b" }), { text: "ok" }],
      {
        tools: tools(echoTool("read")),
        persist: async (s) => {
          saves.push(s);
        },
      },
    );
    await agent.submit("go");
    // The save as a call ends holds its result, which the history gets when the round ends.
    expect(saves.map((s) => s.messages.length)).toEqual([1, 2, 3, 3, 4, 5, 5, 6]);
  });

  it("reports a failed save and carries on", async () => {
    const { agent, of } = await scriptedAgent([{ text: "ok" }], {
      persist: async () => {
        throw new Error("disk full");
      },
    });
    expect((await agent.submit("go")).status).toBe("done");
    expect(of("error").map((e) => e.message)).toEqual([
      "the session could not be saved: disk full",
      "the session could not be saved: disk full",
    ]);
  });

  it("keeps the prompts still waiting in the last save when it closes, and a restored agent runs them in order", async () => {
    const saves: PersistedSession[] = [];
    // Holds the first turn until close() interrupts it.
    const slow = echoTool("slow", {
      run: (_args, { signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const { agent } = await scriptedAgent([call("slow", {}), { text: "first done" }], {
      tools: tools(slow),
      persist: async (s) => {
        saves.push(s);
      },
    });
    void agent.submit("first");
    void agent.submit("second");
    void agent.submit("third");
    // The first turn has begun once its prompt is saved.
    await vi.waitFor(() =>
      expect(saves.some((x) => x.messages.some((m) => m.content === "first"))).toBe(true),
    );
    await agent.close();
    const last = saves.at(-1)!;
    expect(last.queued).toEqual(["second", "third"]);
    // The turn the close cut off is saved as such: the restored agent says so, once.
    expect(last.turnRunning).toBe(true);

    const { agent: again } = await scriptedAgent([{ text: "2" }, { text: "3" }], { restore: last });
    const prompts = () =>
      again
        .snapshot()
        .messages.filter((m) => m.role === "user")
        .map((m) => m.content);
    await vi.waitFor(() => expect(prompts()).toEqual(["first", "second", "third"]));
    expect(again.snapshot().messages.filter((m) => m.content === INTERRUPTED_TURN)).toHaveLength(1);
    await again.close();
  });

  it("answers a prompt whose turn a crash cut off before any reply, saying so", async () => {
    const saves: PersistedSession[] = [];
    const { agent } = await scriptedAgent([{ text: "never seen", delayMs: 10_000 }], {
      persist: async (s) => {
        saves.push(s);
      },
    });
    void agent.submit("do something");
    await vi.waitFor(() =>
      expect(saves.some((x) => x.messages.some((m) => m.content === "do something"))).toBe(true),
    );
    // What the disk holds at this moment is what a process killed now leaves behind.
    const crashed = saves.at(-1)!;
    expect(crashed.messages.map((m) => m.role)).toEqual(["user"]);
    await agent.close();
    const { agent: restored } = await scriptedAgent([], { restore: crashed });
    expect(restored.snapshot().messages.at(-1)).toEqual({ role: "assistant", content: INTERRUPTED_TURN });
    await restored.close();
  });

  it("restores a saved session so that the next request is the one the original would have made", async () => {
    const file = join(dir, "restore.json");
    const replies = () => [
      { toolCalls: [{ name: "read", arguments: { path: "README.md" } }], reasoning: "Look first." },
      { text: "It is a 9P agent runtime.", usage: { input: 900, output: 20, cachedInput: 500 } },
    ];
    const original = await scriptedAgent(replies(), {
      tools: tools(echoTool("read", { readSafe: true })),
      name: "glenda",
      cwd: "/work",
      persist: (s) => saveSession(file, s),
    });
    await original.agent.submit("What is this project?");

    const restoredBackend = new ScriptedBackend({ replies: [{ text: "Yes." }] });
    const { session: saved } = await loadSession(file);
    const restored = await Agent.resume(saved, {
      backend: restoredBackend,
      prompt: "You are a test agent.",
      tools: tools(echoTool("read", { readSafe: true })),
    });
    expect(restored.id).toBe(original.agent.id);
    expect(restored.sessionId).toBe(original.agent.sessionId);
    expect(restored.usage.session).toEqual(original.agent.usage.session);
    expect(restored.taskState).toEqual(original.agent.taskState);

    original.backend.enqueue({ text: "Yes." });
    await original.agent.submit("Is it written in TypeScript?");
    await restored.submit("Is it written in TypeScript?");
    expect(restoredBackend.calls[0]).toEqual(original.backend.calls.at(-1));
  });

  it("restoring a session with unanswered calls answers them and saves the repair", async () => {
    const saves: PersistedSession[] = [];
    const crashed = session([
      { role: "user", content: "build" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "shell", arguments: { cmd: "make" } }],
      },
    ]);
    const agent = await Agent.resume(crashed, {
      backend: new ScriptedBackend({ replies: [] }),
      persist: async (s) => {
        saves.push(s);
      },
    });
    expect(agent.history.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "c1",
      content: RESTART_RESULT,
    });
    expect(saves).toHaveLength(1);
    expect(saves[0]!.messages).toHaveLength(3);
  });
});

describe("session ids", () => {
  it("are <unix-nanoseconds>-<6 hex>, sort by creation time, and do not repeat", () => {
    const ids = Array.from({ length: 1000 }, () => newSessionId());
    for (const id of ids) expect(id).toMatch(/^\d{19}-[0-9a-f]{6}$/);
    expect(new Set(ids).size).toBe(1000);
    const times = ids.map((id) => BigInt(id.split("-")[0]!));
    for (let i = 1; i < times.length; i++) expect(times[i]! >= times[i - 1]!).toBe(true);
    const drift = Number(times[0]! / 1_000_000n) - Date.now();
    expect(Math.abs(drift)).toBeLessThan(5000);
  });
});
