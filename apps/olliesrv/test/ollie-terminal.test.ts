import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OLLIE, type Ollie, startOllie, untilTurns, watchStates } from "./harness.js";
import { atTerminal, ollieCommand } from "./ollie-cli.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-tty-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o);

/** A session of the coding profile, which has the shell tool. */
const codingSession = async () => (await ollie("new", "--agent", "coding")).stdout.trim();

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what they find
const COLOUR = /\u001b\[[0-9;]*m/;
describe("ollie at a terminal", () => {
  it("sh: /help, the running tool in a status line, a summary per turn, each prompt shown once, in colour", async () => {
    const id = await codingSession();
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "sleep 2 && echo rested" } }] },
      { text: "Slept well.", usage: { input: 120, output: 7 } },
    );
    const t = atTerminal(o, `sh ${id}`);
    await t.until("» ");
    t.type("/help\r");
    let at = await t.until("/help ");
    for (const command of [
      "/status",
      "/cost",
      "/model [NAME]",
      "/stop",
      "/compact",
      "/clear",
      "/agent [PROFILE]",
    ])
      at = Math.max(at, await t.until(command, at - 10));
    t.type("have a rest\r");
    // The status line names the tool and its first argument while it runs, with the time taken so far.
    at = await t.until("calling shell: sleep 2 && echo rested · ", at);
    at = await t.until("Slept well.", at);
    at = await t.until("[done] 130 in / 12 out tokens · $0.0000 · ", at);
    expect(t.plain.split("have a rest").length - 1, t.plain).toBe(1);
    expect(t.screen).toMatch(COLOUR);

    t.type("/status\r");
    at = await t.until("context ", at);
    at = await t.until("130 tokens in / 12 out this session, in 2 requests", at);
    at = await t.until("last turn", at);
    t.type("/cost\r");
    at = await t.until("$0.0000 session (130 tokens in / 12 out) · $0.0000 last turn", at);
    t.type("/model\r");
    at = await t.until("* mock-model", at);
    t.type("/model other-model\r");
    at = await t.until("model other-model from the next request", at);
    t.type("/stop\r");
    at = await t.until("error: stop: nothing is running", at);
    t.type("\u0004");
    expect((await t.child).exitCode).toBe(0);
  });

  it("sh: Ctrl-C stops the turn on the server, and the summary says so", async () => {
    const id = await codingSession();
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 60" } }] });
    const t = atTerminal(o, `sh ${id}`);
    await t.until("» ");
    t.type("wait for a minute\r");
    let at = await t.until("calling shell: sleep 60 · ");
    t.type("\u0003");
    at = await t.until("[stopping]", at);
    at = await t.until("[interrupted] ", at);
    expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("interrupted");
    t.type("\u0004");
    expect((await t.child).exitCode).toBe(0);
  });

  it("sh: no colour with NO_COLOR, and no escape sequences at all when piped", async () => {
    const id = await codingSession();
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "true" } }] }, { text: "Done it." });
    const t = atTerminal(o, `sh ${id}`, { NO_COLOR: "1" });
    await t.until("» ");
    t.type("do it\r");
    await t.until("[done] ");
    t.type("\u0004");
    expect((await t.child).exitCode).toBe(0);
    expect(t.screen).toContain("→ shell");
    expect(t.screen).not.toMatch(COLOUR);

    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "true" } }] }, { text: "Piped." });
    const piped = await execa(process.execPath, [OLLIE, "-a", o.address, "sh", id], {
      env: { ...o.env, TERM: "xterm-256color" },
      extendEnv: false,
      reject: false,
      input: "do it again\n/cost\n",
    });
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toContain("» do it again");
    expect(piped.stdout).toContain("Piped.");
    expect(piped.stdout).toMatch(/\[done\] \d+ in \/ \d+ out tokens/);
    expect(piped.stdout).toContain("last turn");
    expect(piped.stdout).not.toContain("\u001b");
    expect(piped.stdout).not.toContain("calling shell");
  });

  it("ask: Ctrl-C stops the turn on the server, which ends interrupted, and ollie exits 130", async () => {
    const id = await codingSession();
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 60" } }] });
    const states = await watchStates(o, `session/${id}/agent/main`);
    const t = atTerminal(o, `ask ${id} wait for a minute`);
    await states.until("calling: shell");
    t.type("\u0003");
    await t.until("ollie: stopping the turn (Ctrl-C again to leave it running)");
    const r = await t.child;
    expect(r.exitCode, t.plain).toBe(130);
    expect(t.plain).toContain("ollie: the turn ended: interrupted");
    expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("interrupted");
  });

  it("ask: a second Ctrl-C leaves at once, the turn left to the daemon", async () => {
    const id = await codingSession();
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 60" } }] });
    const states = await watchStates(o, agent);
    const t = atTerminal(o, `ask ${id} take your time`);
    await states.until("calling: shell");
    // A daemon that does not answer (stopped, here) cannot keep ollie: the second Ctrl-C does not wait for it.
    process.kill(o.pid, "SIGSTOP");
    try {
      t.type("\u0003");
      await t.until("ollie: stopping the turn (Ctrl-C again to leave it running)");
      t.type("\u0003");
      const r = await t.child;
      expect(r.exitCode, t.plain).toBe(130);
      expect(t.plain).toContain(`ollie: left the turn running in session ${id}`);
      expect(t.plain).not.toContain("the turn ended");
    } finally {
      process.kill(o.pid, "SIGCONT");
    }
    // The first Ctrl-C's stop may have been lost with the connection; the turn is stopped now if it was.
    await ollie("stop", id);
    await untilTurns(o, agent, 1);
    expect((await o.read(`${agent}/outcome`)).trim()).toBe("interrupted");
  });

  it("ask: the exit status says how the turn ended; stdout carries the turn, stderr what ollie says", async () => {
    o.mock.enqueue({ text: "Fine." });
    const done = await ollie("ask", "all", "well?");
    expect([done.exitCode, done.stdout]).toEqual([0, "» all well?\n\nFine.\n"]);
    expect(done.stderr).toMatch(
      /^ollie: new session \S+, profile coding \(ollie ask --agent PROFILE for another\)$/,
    );
    o.mock.enqueue({ fault: { type: "auth" } });
    const failed = await ollie("ask", "fail");
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/\nollie: the turn ended: error: /);
  });

  it("top: a live table of two busy sessions, q quits; printed once when not a terminal", async () => {
    const ids = [await codingSession(), await codingSession()];
    for (const [i, id] of ids.entries()) {
      o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: `sleep 6${i}` } }] });
      const states = await watchStates(o, `session/${id}/agent/main`);
      await o.fsys.writeFile(`session/${id}/agent/main/prompt`, `sleep ${i}`);
      await states.until("calling: shell");
    }
    const t = atTerminal(o, "top", {}, "stty cols 120 rows 40; ");
    for (const [i, id] of ids.entries()) {
      const row = new RegExp(`${id} .* calling .* shell: sleep 6${i}`);
      await vi.waitFor(() => expect(t.plain, t.plain).toMatch(row), { timeout: 20_000, interval: 20 });
    }
    expect(t.plain).toMatch(/SESSION +NAME +AGENT +STATE +FOR +TOOL +TURNS +TOKENS +COST +AGE/);
    expect(t.screen).toMatch(COLOUR);
    // The table follows the agents: the first one stopped shows idle, with its turn counted.
    const from = t.plain.length;
    await ollie("stop", ids[0]!);
    const stopped = new RegExp(`${ids[0]} +main +idle .* 1 `);
    await vi.waitFor(() => expect(t.plain.slice(from), t.plain).toMatch(stopped), {
      timeout: 20_000,
      interval: 20,
    });
    // It follows the session list too (session/idxwait): a session made and one renamed while it runs show.
    const listed = t.plain.length;
    const made = await codingSession();
    await o.fsys.writeFile(`session/${ids[0]}/ctl`, "rename in-top\n");
    for (const row of [new RegExp(`${made} +main +idle`), new RegExp(`${ids[0]} +in-top +main +idle`)])
      await vi.waitFor(() => expect(t.plain.slice(listed), t.plain).toMatch(row), {
        timeout: 20_000,
        interval: 20,
      });
    t.type("q");
    expect((await t.child).exitCode).toBe(0);
    // Once the alternate screen is left, nothing is drawn over the shell's screen.
    expect(t.screen).toContain("\u001b[?1049l");
    const afterwards = t.screen.slice(t.screen.lastIndexOf("\u001b[?1049l"));
    expect(afterwards).not.toContain("\u001b[H");
    expect(afterwards).not.toContain("SESSION");

    const once = await ollie("top");
    expect(once.exitCode).toBe(0);
    expect(once.stdout).not.toContain("\u001b");
    expect(once.stdout).toMatch(
      new RegExp(`^${ids[0]} +in-top +main +idle +\\S+ +1 +\\S+ +\\$0\\.0000 +\\S+$`, "m"),
    );
    expect(once.stdout).toMatch(
      new RegExp(`^${ids[1]} +main +calling +\\S+ +shell: sleep 61 +0 +\\S+ +\\$0\\.0000 +\\S+$`, "m"),
    );
    await ollie("stop", ids[1]!);
  });

  it("top: a crash gives the terminal back, the cursor shown, with the error on the shell's screen", async () => {
    const crash = new URL("./fixtures/crash-after-frame.mjs", import.meta.url).href;
    const t = atTerminal(o, "top", { NODE_OPTIONS: `--import=${crash}` });
    expect((await t.child).exitCode, t.plain).toBe(1);
    const entered = t.screen.indexOf("\u001b[?1049h");
    const left = t.screen.lastIndexOf("\u001b[?1049l");
    expect(entered, t.plain).toBeGreaterThanOrEqual(0);
    expect(left, t.plain).toBeGreaterThan(entered);
    expect(t.screen.lastIndexOf("\u001b[?25h")).toBeGreaterThan(t.screen.lastIndexOf("\u001b[?25l"));
    expect(t.screen.slice(left)).toContain("top fell over");
  });
});
