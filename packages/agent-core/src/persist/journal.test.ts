import type { Message } from "@ollie/backends";
import { ScriptedBackend } from "@ollie/backends/testing";
import { describe, expect, it, vi } from "vitest";
import { call, echoTool, scriptedAgent, tools, WAIT } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import { INTERRUPTED_TURN, RESTART_RESULT } from "../history/history.js";
import { type JournalEntry, replayJournal } from "./journal.js";
import type { PersistedSession } from "./persisted-session.js";
import { repairSession } from "./session-repair.js";

/**
 * Storage as an embedder keeps it: a save replaces the session and empties the journal, an entry is
 * appended to it. `crash()` is the session a process killed now restarts with; `ops` what was done, in order.
 */
function storage(options: { failJournal?: number } = {}) {
  let saved: PersistedSession | undefined;
  let entries: JournalEntry[] = [];
  let failures = options.failJournal ?? 0;
  const ops: string[] = [];
  return {
    ops,
    entries: () => entries,
    persist: async (session: PersistedSession) => {
      saved = structuredClone(session);
      entries = [];
      ops.push("save");
    },
    journal: async (entry: JournalEntry) => {
      if (failures-- > 0) {
        ops.push(`${entry.type} failed`);
        throw new Error("no space left on device");
      }
      entries.push(structuredClone(entry));
      ops.push(entry.type);
    },
    crash: () => repairSession(replayJournal(structuredClone(saved!), entries).session).session,
  };
}

/** A read-safe tool whose calls wait for `release()`. */
function heldTool(name: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = false;
  const tool = echoTool(name, {
    readSafe: true,
    run: async () => {
      started = true;
      await gate;
      return `${name} done`;
    },
  });
  return { tool, release, started: () => started };
}

const shape = (messages: readonly Message[]) =>
  messages.map((m) =>
    m.role === "tool" ? `tool ${m.content}` : m.role === "assistant" && m.toolCalls ? "calls" : m.role,
  );

describe("an agent with a journal", () => {
  it("restarts from a kill in its third round with every finished round and call, the running one answered", async () => {
    const store = storage();
    const slow = heldTool("slow");
    const { agent } = await scriptedAgent(
      [
        call("read", { path: "a" }),
        call("read", { path: "b" }),
        {
          toolCalls: [
            { id: "fast", name: "read", arguments: { path: "c" } },
            { id: "held", name: "slow", arguments: {} },
          ],
        },
        { text: "never reached" },
      ],
      { tools: tools(echoTool("read", { readSafe: true }), slow.tool), ...store },
    );
    const turn = agent.submit("read three files");
    // The fast call of the third round has ended and been recorded; the slow one still runs.
    const fastDone = () => store.entries().some((e) => e.type === "result" && e.result.toolCallId === "fast");
    await vi.waitFor(() => expect(fastDone()).toBe(true), WAIT);
    expect(slow.started()).toBe(true);
    const restarted = store.crash();
    // A save as the prompt was taken; every round and result since is in the journal only.
    expect(store.ops).toEqual(["save", "round", "result", "round", "result", "round", "result"]);
    expect(shape(restarted.messages)).toEqual([
      "user",
      "calls",
      'tool read {"path":"a"}',
      "calls",
      'tool read {"path":"b"}',
      "calls",
      'tool read {"path":"c"}',
      `tool ${RESTART_RESULT}`,
      "assistant",
    ]);
    expect(restarted.messages.at(-1)).toEqual({ role: "assistant", content: INTERRUPTED_TURN });
    expect(restarted.turnRunning).toBeUndefined();
    expect(restarted.usage.requests).toBe(3);

    // The agent carries on from it as it is: nothing more to repair, and the next request is valid.
    const backend = new ScriptedBackend({ replies: [{ text: "Checked." }] });
    const again = await Agent.resume(restarted, { backend, tools: tools(echoTool("read")) });
    expect(again.history).toEqual(restarted.messages);
    expect((await again.submit("did the slow one run?")).status).toBe("done");
    slow.release();
    await turn;
  });

  it("records a round before its first call runs: a kill then leaves the call answered as interrupted", async () => {
    const store = storage();
    let atStart: PersistedSession | undefined;
    const probe = echoTool("probe", {
      run: () => {
        atStart = store.crash();
        return "ran";
      },
    });
    const { agent } = await scriptedAgent([call("probe", {}, "Let me look."), { text: "done" }], {
      tools: tools(probe),
      ...store,
    });
    await agent.submit("look");
    expect(atStart!.messages).toEqual([
      { role: "user", content: "look" },
      expect.objectContaining({ role: "assistant", content: "Let me look." }),
      expect.objectContaining({ role: "tool", content: RESTART_RESULT, isError: true }),
      { role: "assistant", content: INTERRUPTED_TURN },
    ]);
    // A finished turn is never labelled interrupted.
    const finished = store.crash();
    expect(shape(finished.messages)).toEqual(["user", "calls", "tool ran", "assistant"]);
    expect(finished.messages.at(-1)!.content).toBe("done");
  });

  it("does not label a turn that ended on its own as cut off, however it ended", async () => {
    const store = storage();
    const { agent } = await scriptedAgent([{ fault: { type: "auth" } }], store);
    expect((await agent.submit("hello")).status).toBe("error");
    expect(store.crash().messages).toEqual([{ role: "user", content: "hello" }]);
  });

  it("falls back to whole saves when an entry cannot be written, and journals again once one succeeds", async () => {
    const store = storage({ failJournal: 1 });
    const { agent, of } = await scriptedAgent([call("read", { path: "a" }), { text: "ok" }], {
      tools: tools(echoTool("read")),
      ...store,
    });
    await agent.submit("go");
    expect(store.ops).toEqual(["save", "round failed", "save", "result", "save"]);
    expect(of("error")).toEqual([]);
  });

  it("after its history is replaced, saves whole until a save holds the new one", async () => {
    const store = storage();
    let agent!: Agent;
    let before: string | undefined;
    const compacting = echoTool("compacting", {
      run: () => {
        // As a compaction does: the same turn goes on with another history.
        before = agent.snapshot().historyId;
        agent.replaceHistory(agent.history);
        return "replaced";
      },
    });
    ({ agent } = await scriptedAgent([call("compacting"), call("compacting"), { text: "done" }], {
      tools: tools(compacting),
      ...store,
    }));
    await agent.submit("go");
    expect(store.ops).toEqual(["save", "round", "save", "round", "save", "save"]);
    expect(agent.snapshot().historyId).not.toBe(before);
  });
});

describe("replaying a journal", () => {
  const reply = (...ids: string[]): Message => ({
    role: "assistant",
    content: "",
    toolCalls: ids.map((id) => ({ id, name: "read", arguments: {} })),
  });
  const result = (id: string): Message & { role: "tool" } => ({
    role: "tool",
    toolCallId: id,
    name: "read",
    content: id,
  });
  const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheCreationTokens: 0 };
  const saved = (messages: Message[], historyId = "h1"): PersistedSession => ({
    version: 1,
    id: "s",
    agentId: "a",
    name: "a",
    messages,
    taskState: { objective: "", constraints: [] },
    usage: { ...usage, requests: 1, costUsd: 0 },
    savedAt: new Date(0).toISOString(),
    historyId,
  });
  const round = (at: number, messages: Message[], history = "h1"): JournalEntry => ({
    type: "round",
    history,
    at,
    messages,
    usage: { ...usage, requests: 2, costUsd: 0 },
    taskState: { objective: "go", constraints: [] },
  });
  const done = (at: number, id: string, history = "h1"): JournalEntry => ({
    type: "result",
    history,
    round: at,
    result: result(id),
  });

  it("adds the rounds and results the save does not hold, each result in the order of its round's calls", () => {
    const session = saved([{ role: "user", content: "go" }]);
    const entries = [round(1, [reply("x", "y", "z")]), done(1, "z"), done(1, "x")];
    const { session: out, applied } = replayJournal(session, entries);
    expect(applied).toBe(3);
    expect(out.messages).toEqual([session.messages[0], reply("x", "y", "z"), result("x"), result("z")]);
    expect(out.turnRunning).toBe(true);
    expect(out.usage.requests).toBe(2);
    expect(out.taskState.objective).toBe("go");
    // The call whose result was not recorded is answered after the results its round did get.
    expect(repairSession(out).session.messages.slice(2)).toEqual([
      result("x"),
      result("z"),
      { role: "tool", toolCallId: "y", name: "read", content: RESTART_RESULT, isError: true },
      { role: "assistant", content: INTERRUPTED_TURN },
    ]);
  });

  it("skips what the session holds already: a journal applied twice, or to a later save, changes nothing", () => {
    const entries = [
      round(1, [reply("x")]),
      done(1, "x"),
      round(3, [{ role: "user", content: "more" }, reply("x")]),
    ];
    const once = replayJournal(saved([{ role: "user", content: "go" }]), entries).session;
    expect(shape(once.messages)).toEqual(["user", "calls", "tool x", "user", "calls"]);
    expect(replayJournal(once, entries)).toEqual({ session: once, applied: 0 });
    // A save made after the first round ended holds it: only the second round is added.
    const later = saved([{ role: "user", content: "go" }, reply("x"), result("x")]);
    expect(replayJournal(later, entries)).toMatchObject({ applied: 1, session: { messages: once.messages } });
  });

  it("skips entries of another history and stops where an entry is missing", () => {
    const session = saved([{ role: "user", content: "go" }], "h2");
    const stale = [round(1, [reply("x")], "h1"), done(1, "x", "h1")];
    expect(replayJournal(session, stale).applied).toBe(0);
    const gap = [round(3, [reply("y")], "h2"), round(1, [reply("x")], "h2")];
    expect(replayJournal(session, gap).applied).toBe(0);
    expect(replayJournal({ ...session, historyId: undefined }, stale).applied).toBe(0);
  });
});

describe("repairing a restored session", () => {
  const base = (messages: Message[], extra: Partial<PersistedSession> = {}): PersistedSession => ({
    version: 1,
    id: "s",
    agentId: "a",
    name: "a",
    messages,
    taskState: { objective: "", constraints: [] },
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      requests: 0,
      costUsd: 0,
    },
    savedAt: new Date(0).toISOString(),
    historyId: "h",
    ...extra,
  });
  const prompt: Message = { role: "user", content: "go" };

  it("marks a turn cut off once, unless its final reply was recorded", () => {
    const cut = repairSession(base([prompt], { turnRunning: true }));
    expect(cut.added).toBe(1);
    expect(cut.session.messages.at(-1)).toEqual({ role: "assistant", content: INTERRUPTED_TURN });
    expect(cut.session.turnRunning).toBeUndefined();
    expect(repairSession(cut.session)).toEqual({ session: cut.session, added: 0 });
    const answered = repairSession(
      base([prompt, { role: "assistant", content: "done" }], { turnRunning: true }),
    );
    expect(answered.added).toBe(0);
    expect(answered.session.messages.at(-1)!.content).toBe("done");
  });

  it("leaves a turn that was not running as it ended; a session saved before turnRunning existed is judged by its last prompt", () => {
    expect(repairSession(base([prompt])).added).toBe(0);
    const old = repairSession(base([prompt], { historyId: undefined }));
    expect(old.session.messages.at(-1)).toEqual({ role: "assistant", content: INTERRUPTED_TURN });
  });
});
