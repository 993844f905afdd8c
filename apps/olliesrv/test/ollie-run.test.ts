import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import type { RunEvent } from "@ollie/client";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { askerFixture } from "./asker-fixture.js";
import { OLLIE, type Ollie, startOllie, WAIT } from "./harness.js";
import { runEvents } from "./run-event-schema.js";

/**
 * `ollie run`: one turn with nobody to ask, for scripts and CI — its JSON lines checked against the schema,
 * its limits, its approvals denied without waiting, and the session it made removed.
 */

type Message = { role: string; content?: string | null };

const BEHAVIOURS = ["Greet", "Loop", "Spend", "Wait", "Make the marker"];

/** The model, by the run's prompt: each test's words choose what it does. */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  // The newest prompt that names a behaviour (a run continuing a session has older ones before it).
  const prompt =
    messages
      .filter((m) => m.role === "user")
      .map((m) => String(m.content))
      .reverse()
      .find((text) => BEHAVIOURS.some((word) => text.includes(word))) ?? "";
  const answered = last.role === "tool";
  if (prompt.includes("Greet")) {
    if (answered) return { text: "Said hello.", usage: { input: 120, output: 4 } };
    return {
      text: "Saying it.",
      toolCalls: [{ name: "shell", arguments: { command: "echo hello from the tool" } }],
      usage: { input: 100, output: 10 },
    };
  }
  if (prompt.includes("Loop")) {
    if (String(last.content).includes("has used all")) return { text: "Out of steps." };
    return { toolCalls: [{ name: "shell", arguments: { command: "true" } }] };
  }
  if (prompt.includes("Spend")) {
    if (answered) return { text: "Spent." };
    // A million tokens of gpt-5 input: $1.25. The command runs until the run stops the turn.
    return {
      toolCalls: [{ name: "shell", arguments: { command: "sleep 100" } }],
      usage: { input: 1_000_000, output: 0 },
    };
  }
  if (prompt.includes("Wait")) {
    if (answered) return { text: "Waited." };
    return { toolCalls: [{ name: "shell", arguments: { command: "sleep 100" } }] };
  }
  if (prompt.includes("Make the marker")) {
    if (answered) return { text: `Could not: ${String(last.content).split("\n")[0]}` };
    return {
      toolCalls: [{ name: "bypass_request", arguments: { operation: "touch_marker", reason: "needed" } }],
    };
  }
  return { text: `You said: ${String(last.content)}` };
}

let o: Ollie;
let marker: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-run-", {
    mock: {
      replies: model,
      models: ["mock-model", "other-model", "big-model", "gpt-5"].map((id) => ({
        id,
        contextLength: 32_768,
      })),
    },
    setup: (config) => {
      // The price table knows gpt-5, so its usage has a cost.
      const conf = join(config, "backends.conf");
      writeFileSync(conf, `${readText(conf)}[priced]\ntype = openai\nurl = ${urlOf(conf)}\nmodel = gpt-5\n`);
      marker = askerFixture(config);
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const readText = (file: string) => readFileSync(file, "utf8");
const urlOf = (conf: string) => /^url = (.*)$/m.exec(readText(conf))![1];

/** `ollie run ARGS` in the daemon's work directory, standard input `input` (else closed). */
const run = (args: string[], input = "") =>
  execa(process.execPath, [OLLIE, "-a", o.address, "run", ...args], {
    cwd: o.work,
    env: o.env,
    extendEnv: false,
    reject: false,
    input,
  });

const sessionIds = async () =>
  (await o.read("session/idx"))
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0]);
const savedSessions = () =>
  readdirSync(join(o.root, "data", "ollie", "sessions")).filter((f) => f.endsWith(".json"));

const ofType = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe("ollie run --json", () => {
  it("prints checked JSON lines — a tool call and its result, usage, the outcome — exits 0 and leaves no session", async () => {
    const before = await sessionIds();
    const r = await run(["--json", "Greet", "the", "world"]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const events = runEvents(r.stdout);
    const [start] = events;
    expect(start).toMatchObject({
      type: "start",
      version: 1,
      profile: "coding",
      model: "mock-model",
      cwd: o.work,
      approvals: "deny",
      kept: false,
    });
    const [call] = ofType(events, "tool_call");
    expect(call).toMatchObject({ name: "shell", arguments: { command: "echo hello from the tool" } });
    const [result] = ofType(events, "tool_result");
    expect(result).toMatchObject({ id: call!.id, name: "shell", error: false });
    expect(result!.output).toContain("hello from the tool");
    expect(events.indexOf(call!)).toBeLessThan(events.indexOf(result!));
    expect(
      ofType(events, "text")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Saying it.Said hello.");
    expect(ofType(events, "usage").map((e) => e.inputTokens)).toEqual([100, 120]);
    expect(events.at(-1)).toEqual({
      type: "outcome",
      status: "done",
      exitStatus: 0,
      steps: 1,
      usage: expect.objectContaining({ inputTokens: 220, outputTokens: 14, requests: 2 }),
      costUsd: 0,
      reply: "Said hello.",
      session: (start as { session: string }).session,
      kept: false,
    });
    expect(await sessionIds()).toEqual(before);
    expect(savedSessions()).not.toContain(`${(start as { session: string }).session}.json`);
  });

  it("--max-turns 1 ends the turn at its step limit, with maxsteps and exit 3", async () => {
    const r = await run(["--json", "--max-turns", "1", "Loop", "for", "ever"]);
    expect(r.exitCode).toBe(3);
    const events = runEvents(r.stdout);
    expect(events[0]).toMatchObject({ type: "start", maxTurns: 1 });
    expect(ofType(events, "tool_result")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      status: "maxsteps",
      exitStatus: 3,
      steps: 1,
      reply: "Out of steps.",
    });
  });

  it("--max-cost stops the turn once its cost passes the cap, with maxcost and exit 5", async () => {
    const before = await sessionIds();
    const r = await run(["--json", "--backend", "priced", "--max-cost", "0.50", "Spend", "a", "lot"]);
    expect(r.exitCode).toBe(5);
    const events = runEvents(r.stdout);
    expect(events[0]).toMatchObject({ model: "gpt-5", maxCostUsd: 0.5 });
    expect(ofType(events, "usage")[0]).toMatchObject({ inputTokens: 1_000_000, costUsd: 1.25 });
    expect(events.at(-1)).toMatchObject({
      status: "maxcost",
      exitStatus: 5,
      costUsd: 1.25,
      error: "the run has cost $1.2500, past --max-cost $0.5000",
    });
    expect(await sessionIds()).toEqual(before);
  });

  it("--max-cost is the session's budget: a request whose input alone passes it is not made; dollars need a price", async () => {
    const r = await run(["--json", "--backend", "priced", "--max-cost", "0.001", "--keep", "Greet", "me"]);
    expect(r.exitCode).toBe(5);
    const events = runEvents(r.stdout);
    expect(ofType(events, "usage")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ status: "budget", exitStatus: 5 });
    const id = events[0]!.type === "start" ? events[0]!.session : "";
    // The coding profile's first request is some 2,500 tokens of gpt-5 input: $0.003, past $0.001.
    expect(await o.read(`session/${id}/agent/main/chat`)).toMatch(
      /! budget: this session's budget: the next request's input \(\$0\.00\d\d\) would pass \$0\.0010 \(\$0\.0000 spent\)/,
    );
    // The kept session has its own limit back: none.
    expect(await o.read(`session/${id}/budget`)).toContain("usd=none\n");

    const unpriced = await run(["--max-cost", "1", "Greet", "me"]);
    expect(unpriced.exitCode).toBe(1);
    expect(unpriced.stderr).toContain(
      "a budget in dollars cannot hold agent main's model mock-model (openai), which has no price in dollars",
    );
  });

  it("denies an approval at once, telling the agent why, and with --approve fail ends the run (exit 6)", async () => {
    const denied = await run(["--json", "--agent", "asker", "Make the marker"]);
    expect(denied.exitCode).toBe(0);
    const events = runEvents(denied.stdout);
    const [approval] = ofType(events, "approval");
    expect(approval).toMatchObject({
      operation: "touch_marker",
      command: `touch ${marker}`,
      reason: "needed",
      decision: "denied",
      message: "ollie run: non-interactive, approvals are denied (--approve deny)",
    });
    expect(ofType(events, "tool_result")[0]!.output).toContain(
      `denied by ${o.owner}: ollie run: non-interactive, approvals are denied (--approve deny)`,
    );
    expect(events.at(-1)).toMatchObject({ status: "done", exitStatus: 0 });
    expect(existsSync(marker)).toBe(false);
    expect(await o.read("bypass/pending")).toBe("");

    const failed = await run(["--json", "--agent", "asker", "--approve", "fail", "Make the marker"]);
    expect(failed.exitCode).toBe(6);
    const last = runEvents(failed.stdout).at(-1)!;
    expect(last).toMatchObject({ status: "approval", exitStatus: 6 });
    expect(existsSync(marker)).toBe(false);
  });

  it("stops the turn at Ctrl-C (exit 130) and still removes its session", async () => {
    const before = await sessionIds();
    const running = run(["--json", "Wait", "a", "while"]);
    let out = "";
    running.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
    });
    await vi.waitFor(() => expect(out).toContain('"type":"tool_call"'), WAIT);
    running.kill("SIGINT");
    const r = await running;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain("ollie: stopping the turn");
    expect(runEvents(r.stdout).at(-1)).toMatchObject({ status: "interrupted", exitStatus: 130 });
    expect(await sessionIds()).toEqual(before);
  });
});

describe("ollie run", () => {
  it("prints the chat as text, reads the prompt from standard input with -, and keeps the session with --keep", async () => {
    const r = await run(["--keep", "-"], "Hello\nthere\n");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("» Hello\nthere\n\nYou said: Hello\nthere\n");
    const kept = /^ollie: kept session (\S+)$/m.exec(r.stderr)?.[1];
    expect(r.stderr).toContain("ollie: approvals are denied in a run (--approve deny)\n");
    expect(await sessionIds()).toContain(kept);
    await o.fsys.writeFile(`session/${kept}/ctl`, "kill\n");
  });

  it("--session continues a session, which stays, its step limit given back", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=nightly`);
    const first = await run(["--session", "nightly", "Remember", "this"]);
    expect(first.exitCode).toBe(0);
    const second = await run(["--session", id, "--max-turns", "1", "--json", "Loop", "again"]);
    expect(second.exitCode).toBe(3);
    expect(runEvents(second.stdout)[0]).toMatchObject({ session: id, kept: true, maxTurns: 1 });
    // The model was given the first run's turn as history.
    const sent = JSON.stringify(o.mock.requests.at(-1)?.body);
    expect(sent).toContain("Remember this");
    expect(await sessionIds()).toContain(id);
    expect(await o.read(`session/${id}/agent/main/cfg`)).toContain("\nmaxsteps=80\n");
  });

  it("refuses a mistake with a line saying what, before it makes anything (exit 2)", async () => {
    const before = await sessionIds();
    const r = await run(["--approve", "ask", "go"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^ollie: --approve takes deny or fail, not 'ask'\ntry 'ollie --help' for the usage$/,
    );
    const empty = await run(["-"], "  \n");
    expect([empty.exitCode, empty.stderr]).toEqual([2, "ollie: run: standard input held no prompt"]);
    expect(await sessionIds()).toEqual(before);
  });
});
