import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, startOllie } from "./harness.js";
import { atTerminal, ollieCommand } from "./ollie-cli.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-cli-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o);

describe("the ollie command", () => {
  it("refuses a wrong command line with its usage and exit 2, before it connects or creates anything", async () => {
    const sessions = (await ollie("ls")).stdout;
    const unreachable = (...args: string[]) =>
      execa(process.execPath, [OLLIE, "-a", "unix!/dev/null/ollie", ...args], {
        env: o.env,
        extendEnv: false,
        reject: false,
      });
    for (const args of [["new", "--colour", "red"], ["stop"], ["chat"], ["ls", "extra"], ["ask"]]) {
      const r = await unreachable(...args);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^ollie: .+\ntry 'ollie --help' for the usage$/);
    }
    // Alone, ollie says what it can do: the whole usage.
    const alone = await unreachable();
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/^ollie: no command given\nusage: ollie /);
    expect((await ollie("ask")).exitCode).toBe(2);
    expect((await ollie("ls")).stdout).toBe(sessions);
  });

  it("creates a session, asks with the reply streamed, lists and reports", async () => {
    const created = await ollie("new", "--name", "cli");
    expect(created.exitCode).toBe(0);
    const id = created.stdout.trim();
    o.mock.enqueue({ text: "The answer is forty-two.", chunkSize: 3, delayMs: 20 });
    const chunks: string[] = [];
    const asking = ollie("ask", id, "What", "is", "the", "answer?");
    asking.stdout!.on("data", (c: Buffer) => chunks.push(c.toString()));
    const asked = await asking;
    expect(asked.exitCode).toBe(0);
    expect(asked.stdout).toBe("» What is the answer?\n\nThe answer is forty-two.\n");
    expect(chunks.length).toBeGreaterThan(2);

    expect((await ollie("ls")).stdout).toContain(`${id}\tcli\tidle\t${o.work}`);
    const status = (await ollie("status", id)).stdout;
    expect(status).toMatch(
      new RegExp(`^${id}\\tidle\\tdefault\\tmock-model\\t\\d+ in / \\d+ out\\t\\$0\\.0000 session$`),
    );
    expect((await ollie("chat", id)).stdout).toContain("The answer is forty-two.");
  });

  it("waits for its own prompt's turn, not the one running when it asked", async () => {
    const id = (await ollie("new")).stdout.trim();
    o.mock.enqueue({ text: "A slow answer to an earlier prompt.", chunkSize: 4, delayMs: 60 });
    o.mock.enqueue({ text: "The answer to this one." });
    await o.fsys.writeFile(`session/${id}/agent/main/prompt`, "an earlier prompt");
    const asked = await ollie("ask", id, "and this one?");
    expect(asked.exitCode).toBe(0);
    expect(asked.stdout).toMatch(/» and this one\?\n\nThe answer to this one\.\n$/);
  });

  it("asks in a new coding session by default, and fails with the reason when the turn fails", async () => {
    o.mock.enqueue({ fault: { type: "auth" } });
    const failed = await ollie("ask", "hello");
    expect(failed.exitCode).toBe(1);
    const [made, ended, kept] = failed.stderr.split("\n");
    const id = /^ollie: new session (\d{19}-[0-9a-f]{6}), profile coding /.exec(made!)![1]!;
    expect(ended).toMatch(new RegExp(`^ollie: the turn ended: error: mock 401: .* \\(session ${id}\\)$`));
    // A turn that did not end well keeps its session, for a look at what happened.
    expect(kept).toBe(
      `ollie: session ${id} is kept: 'ollie ask ${id} …' goes on with it, 'ollie rm ${id}' removes it`,
    );
    expect((await o.read(`session/${id}/agent/main/cfg`)).split("\n")).toContain("profile=coding");
    await ollie("rm", id);
    expect((await ollie("bogus")).exitCode).toBe(2);
    const unreachable = await execa(process.execPath, [OLLIE, "-a", `${o.address}.nowhere`, "ls"], {
      reject: false,
    });
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot reach olliesrv at .*; is it running\?/);
  });

  it("says, when a turn gives up on a backend that is not there, which one and what to do", async () => {
    const id = (await ollie("new", "--backend", "down")).stdout.trim();
    const asked = await ollie("ask", id, "hello");
    expect(asked.exitCode).toBe(1);
    expect(asked.stdout).toContain(
      "~ retrying in 0.3 s, attempt 2 of 2: down: request to http://127.0.0.1:1/api/chat failed: connect ECONNREFUSED 127.0.0.1:1\n",
    );
    expect(asked.stdout).toContain(
      `! the backend 'down' did not answer. Start it, or change [down] in ${o.root}/config/ollie/backends.conf (olliesrv reads it again when it is saved); then prompt again. 'ollie backends' shows which backends answer.\n`,
    );
    expect(asked.stdout.split("did not answer").length).toBe(2);
    expect(asked.stderr).toMatch(/the turn ended: error: down: .*ECONNREFUSED/);
  });

  it("sh: a conversation at a terminal, where Ctrl-C stops the running turn", async () => {
    const id = (await ollie("new")).stdout.trim();
    o.mock.enqueue(
      { text: "Hi there!" },
      { text: "a very long story ".repeat(20), chunkSize: 4, delayMs: 100 },
      { text: "Short now." },
    );
    const t = atTerminal(o, `sh ${id}`, { TERM: "dumb" });
    await t.until("» ");
    t.type("hello\r");
    let at = await t.until("Hi there!");
    t.type("tell me a long story\r");
    at = await t.until("a very long", at);
    t.type("\u0003");
    at = await t.until("[stopping]", at);
    at = await t.until("[interrupted] ~", at);
    // The request cut off is counted: the prompt it carried and the story it had told so far.
    await t.until(" out tokens", at);
    const [, input, output] = /\[interrupted\] ~(\d+) in \/ (\d+) out tokens/.exec(t.plain) ?? [];
    expect(Number(input)).toBeGreaterThan(0);
    expect(Number(output)).toBeGreaterThanOrEqual(Math.ceil("a very long".length / 4));
    t.type("/model other-model\r");
    t.type("and now?\r");
    await t.until("Short now.", at);
    expect(o.mock.lastRequest?.model).toBe("other-model");
    t.type("\u0004");
    expect((await t.child).exitCode).toBe(0);
    expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("done");
  });
});
