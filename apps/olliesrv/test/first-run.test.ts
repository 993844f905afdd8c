import { rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, startOllie } from "./harness.js";
import { atTerminal, ollieCommand } from "./ollie-cli.js";

/** Whether something answers on Ollama's port here: then the shipped default is not "no backend". */
const ollamaRuns = await new Promise<boolean>((resolve) => {
  const socket = connect(11434, "127.0.0.1");
  socket.once("connect", () => {
    socket.destroy();
    resolve(true);
  });
  socket.once("error", () => resolve(false));
});

let o: Ollie;
beforeAll(async () => {
  // A first run: no backends.conf of the user's, so olliesrv uses the shipped one (Ollama on localhost).
  o = await startOllie("olliesrv-first-run-", {
    setup: (config) => rmSync(join(config, "backends.conf")),
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o, { NO_COLOR: "1" });

describe.skipIf(ollamaRuns)("a first run with no backend configured", () => {
  it("fails after one quick retry saying what to do; then ollie init and a prompt work, olliesrv never restarted", async () => {
    const pid = o.pid;
    const conf = join(o.root, "config", "ollie", "backends.conf");
    expect(o.log()).toContain(`${conf}, which does not exist yet: 'ollie init PROVIDER' writes it`);

    const failed = await ollie("ask", "hello");
    expect(failed.exitCode).toBe(1);
    const chat = failed.stdout;
    // Unreachable: one retry after 0.3 s, not the backoff a failing server gets.
    expect(chat).toMatch(
      /~ retrying in 0\.3 s, attempt 2 of 2: local: request to http:\/\/localhost:11434\/api\/chat failed: connect ECONNREFUSED/,
    );
    expect(chat).toContain(
      `! the backend 'local' did not answer: no backend is configured yet, and the shipped default is Ollama on this machine. Run 'ollie init PROVIDER' to write ${conf} ('ollie init' lists the providers; 'ollie init demo' tries Ollie offline, with no key), or start Ollama; then prompt again.`,
    );
    // Said once, when the turn gave up: after the retry, never before it.
    expect(chat.split("did not answer").length).toBe(2);
    expect(chat.indexOf("~ retrying")).toBeLessThan(chat.indexOf("did not answer"));
    expect(failed.stderr).toMatch(/the turn ended: error: local: .*ECONNREFUSED/);
    const session = /\(session (\S+)\)/.exec(failed.stderr)![1]!;

    const listed = await ollie("init");
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^ {2}ollama +\[local\] ollama at http:\/\/localhost:11434/m);
    expect(listed.stdout).toMatch(
      /^ {2}anthropic +\[claude\] anthropic, model claude-sonnet-4-5, key in \$ANTHROPIC_API_KEY$/m,
    );

    const init = await ollie("init", "ollama", "--url", o.mock.url, "--model", "mock-model");
    expect(init.stderr).toBe("");
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toBe(
      [
        `wrote ${conf}: [local], the default: ollama at ${o.mock.url}, model mock-model`,
        "no key needed",
        "olliesrv uses it from now on: no restart needed",
        "[local] answers (asked by olliesrv): 3 models (mock-model, other-model, big-model)",
      ].join("\n"),
    );
    expect(o.log()).toMatch(new RegExp(`INFO  olliesrv: read ${conf}: local; default backend: local`));

    // A new session takes the new file, and so does the session whose turn failed, at its next turn.
    o.mock.enqueue({ text: "Hello from the mock." }, { text: "Now I answer here too." });
    const asked = await ollie("ask", "hello again");
    // The line that says which session and profile; the session is removed once its turn ended well.
    expect(asked.stderr).toMatch(
      /^ollie: new session \S+, profile coding \(ollie ask --agent PROFILE for another\)$/,
    );
    expect(asked.exitCode).toBe(0);
    expect(asked.stdout).toContain("Hello from the mock.");
    expect(o.mock.lastRequest).toMatchObject({ provider: "ollama", model: "mock-model" });
    const again = await ollie("ask", session, "and here?");
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("Now I answer here too.");
    expect(await o.read(`session/${session}/agent/main/chat`)).toContain(
      "· backends.conf changed: this agent now uses 'local' (ollama, mock-model)",
    );
    expect(o.pid).toBe(pid);
  });

  it("sh at a terminal: the failure says what to do, and after ollie init the next line is answered", async () => {
    const fresh = await startOllie("olliesrv-first-sh-", {
      setup: (config) => rmSync(join(config, "backends.conf")),
    });
    try {
      const t = atTerminal(fresh, "sh", { TERM: "dumb", NO_COLOR: "1" });
      let at = await t.until("» ");
      t.type("hello\r");
      // The retry waits on the status line (a terminal, even a dumb one); the failure is said once, below.
      at = await t.until("retrying in 0.3 s, attempt 2 of 2: local: ", at);
      at = await t.until("! the backend 'local' did not answer: no backend is configured yet", at);
      at = await t.until("» ", at);
      const init = await execa(
        process.execPath,
        [OLLIE, "-a", fresh.address, "init", "ollama", "--url", fresh.mock.url, "--model", "mock-model"],
        { cwd: fresh.work, env: fresh.env, extendEnv: false, reject: false },
      );
      expect(init.exitCode, init.stderr).toBe(0);
      fresh.mock.enqueue({ text: "Configured, and here I am." });
      t.type("hello again\r");
      at = await t.until("Configured, and here I am.", at);
      t.type("\u0004");
      expect((await t.child).exitCode).toBe(0);
      expect(t.plain.split("did not answer").length).toBe(2);
    } finally {
      await fresh.stop();
      await fresh.remove();
    }
  });
});
