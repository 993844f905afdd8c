import { describe, expect, it } from "vitest";
import { ReplyFormatError } from "../errors.js";
import { parseActivity } from "./activity.js";
import { parseAgentConfig, settingsLines } from "./agent-config.js";
import { callingTools, parseState } from "./agent-state.js";
import { parseBudget } from "./budget.js";
import { parseOperations, parsePending } from "./bypass-lines.js";
import { parseCheckpoints } from "./checkpoints.js";
import { parseHistory } from "./history.js";
import { parseOutcome, parseTurnEnd } from "./outcome.js";
import {
  parseBackendChecks,
  parseBackends,
  parseModels,
  parseProfiles,
  parseSessionIndex,
  parseSkills,
  parseStats,
} from "./tables.js";
import { parseToolsrvStatus } from "./toolsrv-status.js";
import { parseContextSize, parseCost, parseUsage } from "./usage.js";

const P = "some/file";

describe("an agent's files", () => {
  it("state, and the tools a calling agent runs", () => {
    expect(parseState("calling: shell, file_read\n", P)).toBe("calling: shell, file_read");
    expect(callingTools("calling: shell, file_read")).toEqual(["shell", "file_read"]);
    expect(callingTools("thinking")).toEqual([]);
    expect(() => parseState("dreaming\n", P)).toThrow(ReplyFormatError);
    // What runs over a turn's state: a hook, a compaction, the prompt commands.
    for (const state of ["hook: preTurn", "compacting", "prompt commands"])
      expect(parseState(`${state}\n`, P)).toBe(state);
    expect(callingTools("hook: preTool")).toEqual([]);
  });

  it("outcome, and prompts/N: the outcome, then the reply", () => {
    expect(parseOutcome("maxsteps", P)).toEqual({ status: "maxsteps", text: "maxsteps" });
    expect(parseOutcome("error: backend 'x': 503", P)).toEqual({
      status: "error",
      error: "backend 'x': 503",
      text: "error: backend 'x': 503",
    });
    expect(() => parseOutcome("finished", P)).toThrow(ReplyFormatError);
    expect(parseTurnEnd("done\nTwo lines\nof reply.\n", P)).toEqual({
      outcome: { status: "done", text: "done" },
      reply: "Two lines\nof reply.",
    });
    expect(parseTurnEnd("interrupted\n", P)).toEqual({
      outcome: { status: "interrupted", text: "interrupted" },
      reply: "",
    });
  });

  it("activity", () => {
    const text =
      "state=calling\ntool=shell,file_read\narg=ls -l\nsince=2026-12-02T10:00:00.000Z\nturn_started=2026-12-02T09:59:58.000Z\n";
    expect(parseActivity(text)).toEqual({
      state: "calling",
      tools: ["shell", "file_read"],
      arg: "ls -l",
      since: new Date("2026-12-02T10:00:00.000Z"),
      turnStarted: new Date("2026-12-02T09:59:58.000Z"),
    });
    expect(
      parseActivity("state=idle\ntool=\narg=\nsince=2026-12-02T10:00:00.000Z\nturn_started=\n"),
    ).toMatchObject({
      state: "idle",
      tools: [],
      turnStarted: undefined,
    });
    expect(
      parseActivity("state=hook\ntool=preTurn\narg=\nsince=2026-12-02T10:00:00.000Z\nturn_started=\n"),
    ).toMatchObject({ state: "hook", tools: ["preTurn"] });
  });

  it("budget, with limits and without", () => {
    expect(
      parseBudget(
        "usd=2.0000\nusd_spent=0.7500\nusd_left=1.2500\ntokens=none\ntokens_spent=1200\ntokens_left=-\nwarn_at=50%,80%\ncounts=…\n",
      ),
    ).toEqual({
      usd: 2,
      usdSpent: 0.75,
      usdLeft: 1.25,
      tokens: undefined,
      tokensSpent: 1200,
      tokensLeft: undefined,
      warnAt: [0.5, 0.8],
    });
  });

  it("checkpoints", () => {
    const text = [
      "directory /w/app",
      "shared with 17-a 18-b: their turns record, and their rewinds change, the same files",
      "1\tturn 2\t2026-12-07T17:50:02.113Z\tturn\t0 files +0 -0",
      "\tnoted\tfile-cap 2097152 bytes\tbig.dat",
      "2\t-\t2026-12-07T17:55:12.006Z\tbefore rewind to 1\t2 files +1 -4",
      "\tdeleted\t+0 -4\tnotes.txt",
      "\tmodified\tbinary\tdata.bin",
      '\tadded\t+1 -0\t"odd\\nname"',
      "",
    ].join("\n");
    expect(parseCheckpoints(text)).toEqual({
      directory: "/w/app",
      sharedWith: ["17-a", "18-b"],
      unavailable: undefined,
      list: [
        {
          n: 1,
          turn: 2,
          time: new Date("2026-12-07T17:50:02.113Z"),
          kind: "turn",
          rewindTo: undefined,
          files: [],
          noted: [{ path: "big.dat", reason: "file-cap 2097152 bytes" }],
        },
        {
          n: 2,
          turn: undefined,
          time: new Date("2026-12-07T17:55:12.006Z"),
          kind: "before rewind",
          rewindTo: 1,
          files: [
            { path: "notes.txt", change: "deleted", added: 0, deleted: 4 },
            { path: "data.bin", change: "modified", added: undefined, deleted: undefined },
            { path: "odd\nname", change: "added", added: 1, deleted: 0 },
          ],
          noted: [],
        },
      ],
    });
    expect(parseCheckpoints("directory /r\nunavailable its tools run on box\n")).toMatchObject({
      unavailable: "its tools run on box",
      list: [],
    });
  });

  it("cfg, a remote session's too; and the lines that change it", () => {
    const local =
      "name=main\nuname=1-a.main\nprofile=coding\nbackend=\nmodel=m=1\ncwd=/w\nskills=\nstate=idle\n";
    expect(parseAgentConfig(local, P)).toEqual({
      name: "main",
      uname: "1-a.main",
      profile: "coding",
      backend: undefined,
      model: "m=1",
      cwd: "/w",
      skills: [],
      state: "idle",
    });
    const remote = `${local}remote=build@host\nremote_state=disconnected\nremote_lost=ssh: timed out\n`;
    expect(parseAgentConfig(remote, P).remote).toEqual({
      host: "build@host",
      state: "disconnected",
      lost: "ssh: timed out",
    });
    expect(settingsLines({ model: "big", backend: undefined, profile: "coding" })).toBe(
      "model=big\nprofile=coding\n",
    );
    expect(() => settingsLines({ model: "a\nbackend=b" })).toThrow(TypeError);
    expect(parseAgentConfig(local.replace("cwd=", "maxsteps=12\ncwd="), P).maxSteps).toBe(12);
    expect(settingsLines({ maxSteps: 3 })).toBe("maxsteps=3\n");
    for (const bad of [0, 1.5, Number.NaN]) expect(() => settingsLines({ maxSteps: bad })).toThrow(TypeError);
  });

  it("usage, cost and ctxsz", () => {
    const totals = {
      inputTokens: 10,
      outputTokens: 2,
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      requests: 1,
      costUsd: 0.5,
    };
    expect(parseUsage(JSON.stringify({ turn: totals, session: { ...totals, extra: 1 } }), P)).toEqual({
      turn: totals,
      session: totals,
    });
    expect(() => parseUsage(JSON.stringify({ turn: { inputTokens: "ten" } }), P)).toThrow(ReplyFormatError);
    expect(
      parseCost("$0.0123 session\n$0.0042 last turn\n$0.0000 compaction (part of the session)\n", P),
    ).toEqual({
      session: 0.0123,
      lastTurn: 0.0042,
      compaction: 0,
    });
    expect(parseContextSize("1200/32768 3.7%\n", P)).toEqual({
      tokens: 1200,
      window: 32768,
      fraction: 1200 / 32768,
    });
  });
});

describe("the root's files", () => {
  it("session/idx", () => {
    expect(parseSessionIndex("1-a\tfirst\tidle\t/w\n2-b\t2-b\tcalling: shell\t/w/tab\there\n", P)).toEqual([
      { id: "1-a", name: "first", state: "idle", cwd: "/w" },
      { id: "2-b", name: "2-b", state: "calling: shell", cwd: "/w/tab\there" },
    ]);
    expect(parseSessionIndex("", P)).toEqual([]);
    expect(() => parseSessionIndex("1-a\tfirst\n", P)).toThrow(ReplyFormatError);
  });

  it("models, profiles, backends, their check, and stats", () => {
    expect(parseModels("a\t32768\nb\t-\tout=4096 tools vision\nc\n")).toEqual([
      { id: "a", contextLength: 32768, traits: [] },
      { id: "b", traits: ["out=4096", "tools", "vision"] },
      { id: "c", traits: [] },
    ]);
    expect(parseProfiles("coding\tEdits code\nplain\t-\nbad\tbroken: agents/bad.json:1:1: oops\n")).toEqual([
      { name: "coding", description: "Edits code" },
      { name: "plain" },
      { name: "bad", problem: "agents/bad.json:1:1: oops" },
    ]);
    expect(parseBackends("* mock\topenai\tm\n  other\tollama\tn\n", P)).toEqual([
      { name: "mock", type: "openai", model: "m", isDefault: true },
      { name: "other", type: "ollama", model: "n", isDefault: false },
    ]);
    expect(
      parseBackendChecks(
        "# /c/backends.conf\nok\t* mock\topenai\tm\t3 models (m, …)\nodd\t  down\tollama\tn\tno\tanswer\n",
        P,
      ),
    ).toEqual({
      file: "/c/backends.conf",
      backends: [
        {
          status: "ok",
          isDefault: true,
          name: "mock",
          type: "openai",
          model: "m",
          detail: "3 models (m, …)",
        },
        { status: "error", isDefault: false, name: "down", type: "ollama", model: "n", detail: "no\tanswer" },
      ],
    });
    expect(parseStats("sessions 2\nheap-used 1234 (not collected first)\nrss 99\n")).toEqual({
      sessions: 2,
      "heap-used": 1234,
      rss: 99,
    });
  });

  it("bypass/pending and bypass/operations", () => {
    expect(parsePending("3\t1-a.main\tapt_install\tapt-get install -y rg\tit is slow\\there\n", P)).toEqual([
      {
        number: 3,
        agent: "1-a.main",
        operation: "apt_install",
        command: "apt-get install -y rg",
        reason: "it is slow\\there",
      },
    ]);
    expect(parseOperations("apt_install\trequired\t600\tapt-get install -y\n", P)).toEqual([
      { name: "apt_install", approval: "required", timeoutSeconds: 600, command: "apt-get install -y" },
    ]);
    expect(() => parsePending("x\ty\n", P)).toThrow(ReplyFormatError);
  });
});

describe("toolsrv's lines of stats", () => {
  it("reads a toolsrv that is down, one that is up, and none for one olliesrv does not watch", () => {
    const down = [
      "sessions 2",
      "toolsrv down",
      "toolsrv-since 2026-12-07T05:00:00.000Z",
      "toolsrv-restarts 3",
      "toolsrv-last-exit exit status 1",
      "toolsrv-next-start 2026-12-07T05:00:04.000Z",
      "",
    ].join("\n");
    expect(parseToolsrvStatus(down)).toEqual({
      state: "down",
      since: "2026-12-07T05:00:00.000Z",
      restarts: 3,
      lastExit: "exit status 1",
      nextStart: "2026-12-07T05:00:04.000Z",
    });
    const up = "toolsrv up\ntoolsrv-since 2026-12-07T05:00:05.000Z\ntoolsrv-pid 4250\ntoolsrv-restarts 4\n";
    expect(parseToolsrvStatus(up)).toEqual({
      state: "up",
      since: "2026-12-07T05:00:05.000Z",
      pid: 4250,
      restarts: 4,
    });
    expect(parseToolsrvStatus("sessions 1\ntoolsrv external\n")).toBeUndefined();
    expect(parseToolsrvStatus("sessions 1\n")).toBeUndefined();
  });
});

describe("an agent's history (context)", () => {
  it("reads the messages as the model has them, and refuses what is not a list of them", () => {
    const messages = [
      { role: "system", content: "You are." },
      { role: "user", content: "List it." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "shell", arguments: { command: "ls" } }],
      },
      { role: "tool", toolCallId: "c1", name: "shell", content: "a\nb\n" },
      { role: "assistant", content: "Two files." },
    ];
    expect(parseHistory(JSON.stringify(messages), P)).toEqual(messages);
    expect(() => parseHistory("{}", P)).toThrow(ReplyFormatError);
    expect(() => parseHistory('[{"role":"robot","content":"x"}]', P)).toThrow("not a list of messages");
    expect(() => parseHistory("[", P)).toThrow("not JSON");
  });
});

describe("an agent's skills", () => {
  it("reads each skill, loaded or not, and refuses a line that is not one", () => {
    expect(parseSkills("* review\tReview a change\n  release\tCut a release: tag, notes\n", P)).toEqual([
      { name: "review", description: "Review a change", loaded: true },
      { name: "release", description: "Cut a release: tag, notes", loaded: false },
    ]);
    expect(parseSkills("", P)).toEqual([]);
    expect(() => parseSkills("review Review a change\n", P)).toThrow("not a skill's line");
  });
});
