import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { parentOf, processesWhere } from "@ollie/sandbox/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, untilTurns, WAIT } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

/**
 * Crash-only tools, through the real daemon: olliesrv's toolsrv killed outright mid-call, the sandbox
 * launcher service killed under a call, a toolsrv that cannot start again. Agents go on at their next call;
 * the call that was cut off says what happened.
 */

type Message = { role: string; content?: string | null };

/**
 * `run: COMMAND` makes one shell call of COMMAND, `ask: REASON` one bypass request; once its result is in,
 * the turn ends with a word.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  if (last.role === "tool") return { text: "Done." };
  const reason = /^ask: (.*)$/m.exec(String(last.content))?.[1];
  if (reason !== undefined)
    return { toolCalls: [{ name: "bypass_request", arguments: { operation: "touch_marker", reason } }] };
  const command = /^run: (.*)$/ms.exec(String(last.content))?.[1] ?? "true";
  return { toolCalls: [{ name: "shell", arguments: { command } }] };
}

let o: Ollie;
const ollie = ollieCommand(() => o);
beforeAll(async () => {
  o = await startOllie("olliesrv-restart-", {
    mock: { replies: model },
    setup: (config) => {
      writeFileSync(
        join(config, "bypass.yaml"),
        `operations:\n  - name: touch_marker\n    argv: [touch, ${join(config, "marker")}]\n`,
      );
      mkdirSync(join(config, "agents"), { recursive: true });
      writeFileSync(
        join(config, "agents", "asker.json"),
        JSON.stringify({ prompt: ["echo You ask."], autoLoad: ["bypass_request"] }),
      );
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

/** The `stats` lines as name → value. */
async function stats(): Promise<Map<string, string>> {
  const lines = (await o.read("stats")).split("\n").filter(Boolean);
  return new Map(lines.map((l) => [l.slice(0, l.indexOf(" ")), l.slice(l.indexOf(" ") + 1)]));
}

/** What the agent's last tool call returned, as the model read it. */
async function lastResult(agent: string): Promise<string | undefined> {
  const history = JSON.parse(await o.read(`${agent}/context`)) as Message[];
  return history.findLast((m) => m.role === "tool")?.content ?? undefined;
}

/** A new session in its own directory under the work directory; its main agent's path. */
async function session(name: string): Promise<{ agent: string; dir: string }> {
  const dir = join(o.work, name);
  mkdirSync(dir, { recursive: true });
  return { agent: `session/${await o.create(`agent=coding cwd=${dir}`)}/agent/main`, dir };
}

/**
 * Starts a turn whose shell call writes `started`, then blocks reading the fifo `go` (the mark names its
 * processes); resolves once the call runs.
 */
async function blockedCall(s: { agent: string; dir: string }, mark: string): Promise<void> {
  await execa("mkfifo", [join(s.dir, "go")]);
  await o.fsys.writeFile(`${s.agent}/prompt`, `run: : > started; read word < go # ${mark}`);
  await vi.waitFor(() => expect(existsSync(join(s.dir, "started"))).toBe(true), WAIT);
}

/** The processes whose command line carries `mark`. */
const marked = (mark: string) => processesWhere("cmdline", (words) => words.some((w) => w.includes(mark)));

describe("olliesrv's toolsrv killed outright (kill -9) during a call", () => {
  it("is started again; the cut-off call says so, and every session's next call works, a new one's too", async () => {
    const a = await session("a");
    const b = await session("b");
    // b has called a tool already: it holds a connection to the toolsrv about to die.
    await prompt(o, b.agent, "run: echo b before");
    expect(await lastResult(b.agent)).toBe("b before\n");
    const before = await stats();
    expect(before.get("toolsrv")).toBe("up");
    const pid = Number(before.get("toolsrv-pid"));
    const mark = randomUUID();
    await blockedCall(a, mark);

    const killed = performance.now();
    process.kill(pid, "SIGKILL");
    // The prompt comes once olliesrv knows: a call sent to a toolsrv whose threads are still exiting is a
    // call its death cut off.
    await vi.waitFor(
      async () => expect((await stats()).get("toolsrv-last-exit")).toBe("killed by SIGKILL"),
      WAIT,
    );
    await prompt(o, b.agent, "run: echo b after");
    const took = performance.now() - killed;
    expect(await lastResult(b.agent)).toBe("b after\n");
    console.log(`a tool call of a new prompt succeeded ${took.toFixed(0)} ms after toolsrv was killed`);

    await untilTurns(o, a.agent, 1);
    expect(await lastResult(a.agent)).toBe(
      "shell failed: toolsrv restarted during this call; it did not finish (toolsrv died: killed by SIGKILL), and the " +
        "processes it had started ended with it. The next call runs on the new toolsrv",
    );
    await vi.waitFor(() => expect(marked(mark)).toEqual([]), WAIT);
    await prompt(o, a.agent, "run: echo a after");
    expect(await lastResult(a.agent)).toBe("a after\n");
    const c = await session("c");
    await prompt(o, c.agent, "run: echo c after");
    expect(await lastResult(c.agent)).toBe("c after\n");

    const after = await stats();
    expect(after.get("toolsrv")).toBe("up");
    expect(Number(after.get("toolsrv-pid"))).not.toBe(pid);
    expect(after.get("toolsrv-restarts")).toBe("1");
    expect(after.get("toolsrv-last-exit")).toBe("killed by SIGKILL");
    expect(o.log()).toMatch(
      new RegExp(
        `ERROR olliesrv: toolsrv \\(pid ${pid}\\) died after [\\d.]+ s: killed by SIGKILL; starting it again\\.`,
      ),
    );
    // The bypass desk follows the new toolsrv's broker.
    await o.logged(/following toolsrv's bypass broker again/);
    const status = (await ollie("status")).stdout;
    expect(status.split("\n")[0]).toMatch(
      new RegExp(
        `^toolsrv\\tup since \\S+\\tpid ${after.get("toolsrv-pid")}\\t1 restarts\\tlast exit: killed by SIGKILL$`,
      ),
    );
  });
});

describe("the sandbox launcher service killed during a call", () => {
  it("ends the call with a result that says so, and the next call starts a new service", async () => {
    const s = await session("launcher");
    const mark = randomUUID();
    await blockedCall(s, mark);
    const toolsrv = Number((await stats()).get("toolsrv-pid"));
    const [service, ...others] = processesWhere(
      "cmdline",
      (words) => words.includes("--serve"),
      (p) => parentOf(p) === toolsrv,
    );
    expect(others).toEqual([]);
    process.kill(service!, "SIGKILL");
    await untilTurns(o, s.agent, 1);
    expect(await lastResult(s.agent)).toMatch(
      /^\[shell did not finish: the sandbox launcher service stopped during this call \(killed by SIGKILL\), ending shell and every process it started; the next call starts a new service\]\n?$/,
    );
    await vi.waitFor(() => expect(marked(mark)).toEqual([]), WAIT);
    await prompt(o, s.agent, "run: echo served again");
    expect(await lastResult(s.agent)).toBe("served again\n");
    // toolsrv itself lived on.
    expect(Number((await stats()).get("toolsrv-pid"))).toBe(toolsrv);
  });
});

describe("a bypass request waiting when toolsrv dies", () => {
  it("is lost, the asking agent's chat saying so, and the pending list is empty", async () => {
    const id = await o.create(`agent=asker cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const wait = await o.fsys.open("bypass/wait");
    await o.fsys.writeFile(`${agent}/prompt`, "ask: a file outside");
    let pending = "";
    while (pending === "") pending = (await wait.readAll()).toString();
    await wait.close();
    const request = Number(pending.split("\t")[0]);
    process.kill(Number((await stats()).get("toolsrv-pid")), "SIGKILL");
    await untilTurns(o, agent, 1);
    expect(await o.read(`${agent}/chat`)).toContain(
      `· bypass request ${request} lost: toolsrv ended (killed by SIGKILL) before it was decided`,
    );
    expect(await o.read("bypass/pending")).toBe("");
    expect((await ollie("bypass")).stdout).toBe("");
  });
});

describe("a toolsrv that cannot start again", () => {
  // Its starts back off (it has died three times in a minute in this file): the wait is the test's own.
  it("is shown down (stats, ollie status) while it keeps failing, and comes back once it can", {
    timeout: 120_000,
  }, async () => {
    const { agent } = await session("down");
    await prompt(o, agent, "run: echo up");
    const socket = join(o.root, "ns", "toolsrv");
    const pid = Number((await stats()).get("toolsrv-pid"));
    // A file where its socket goes: a new toolsrv refuses to serve there, and exits.
    rmSync(socket);
    writeFileSync(socket, "not a socket\n");
    process.kill(pid, "SIGKILL");
    await o.logged(/toolsrv could not be started again: toolsrv exited \(exit status 1\) before it served/);
    const state = (await stats()).get("toolsrv");
    expect(["restarting", "down"]).toContain(state);
    const status = (await ollie("status", agent.split("/")[1]!)).stdout;
    expect(status.split("\n")[0]).toMatch(/^toolsrv\t(restarting|down) since \S+\t\d+ restarts\tlast exit: /);
    rmSync(socket);
    await vi.waitFor(async () => expect((await stats()).get("toolsrv")).toBe("up"), {
      timeout: 60_000,
      interval: 100,
    });
    await prompt(o, agent, "run: echo up again");
    expect(await lastResult(agent)).toBe("up again\n");
  });
});
