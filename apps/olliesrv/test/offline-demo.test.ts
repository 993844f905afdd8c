import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";
import { atTerminal, ollieCommand } from "./ollie-cli.js";

let o: Ollie;
let conf: string;
beforeAll(async () => {
  // A first run: no backends.conf of the user's, no key anywhere.
  o = await startOllie("olliesrv-offline-demo-", {
    setup: (config) => rmSync(join(config, "backends.conf")),
  });
  conf = join(o.root, "config", "ollie", "backends.conf");
  writeFileSync(join(o.work, "notes.txt"), "remember the milk\n");
  writeFileSync(join(o.work, "tool.py"), "print('hi')\n");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o, { NO_COLOR: "1" });
/** The session the first sh kept, which the next test names. */
let keptBySh = "";
const NEW_SESSION =
  /^ollie: new session (\d{19}-[0-9a-f]{6}), profile coding \(ollie ask --agent PROFILE for another\)$/m;

describe("trying Ollie offline, with the demo backend", () => {
  it("ollie init demo, then ask: a real tool call in the sandbox, a reply made from its result, and no session left", async () => {
    const pid = o.pid;
    const init = await ollie("init", "demo");
    expect(init.stderr).toBe("");
    expect(init.exitCode).toBe(0);
    expect(init.stdout.split("\n")).toEqual([
      `wrote ${conf}: [demo], the default: demo, model ollie-demo`,
      "no key needed",
      expect.stringMatching(/^the demo is a script, not a model: .* then 'ollie init anthropic'/),
      "olliesrv uses it from now on: no restart needed",
      "[demo] answers (asked by olliesrv): 1 model (ollie-demo)",
    ]);

    const chunks: string[] = [];
    const asking = ollie("ask", "what", "is", "here?");
    asking.stdout!.on("data", (c: Buffer) => chunks.push(c.toString()));
    const asked = await asking;
    expect(asked.exitCode, asked.stderr).toBe(0);
    // Only the line that says which session and profile: the session is gone once the turn ended well.
    expect(asked.stderr).toMatch(NEW_SESSION);
    expect(asked.stderr.split("\n")).toHaveLength(1);
    const chat = asked.stdout;
    expect(chat).toMatch(
      /^» what is here\?\n\nThis is Ollie's offline demo backend: no model and no network/,
    );
    expect(chat).toContain('→ file_glob {"pattern":"*"}');
    // What the tool found here, in the reply: the files of the session's directory.
    expect(chat).toMatch(/file_glob found 2 files here: (notes\.txt, tool\.py|tool\.py, notes\.txt)\./);
    expect(chat).toContain("`ollie init anthropic`");
    expect(chunks.length).toBeGreaterThan(2);
    expect((await ollie("ls")).stdout).toBe("");
    expect(o.pid).toBe(pid);
  });

  it("ask --keep: the session stays, said with its id; status shows its profile and ls a header", async () => {
    const asked = await ollie("ask", "--keep", "read notes.txt");
    expect(asked.exitCode, asked.stderr).toBe(0);
    const id = NEW_SESSION.exec(asked.stderr)![1]!;
    expect(asked.stderr).toContain(
      `ollie: session ${id} is kept: 'ollie ask ${id} …' goes on with it, 'ollie rm ${id}' removes it`,
    );
    expect(asked.stdout).toContain('→ file_read {"path":"notes.txt","limit":40}');
    expect(asked.stdout).toContain('file_read gave 1 line; the first says: "remember the milk".');

    expect((await ollie("status", id)).stdout).toMatch(
      new RegExp(`^${id}\\tidle\\tcoding\\tollie-demo\\t\\d+ in / \\d+ out\\t\\$0\\.0000 session$`),
    );
    expect((await ollie("ls")).stdout).toBe(`id\tname\tstate\tdirectory\n${id}\t${id}\tidle\t${o.work}`);

    // The sandbox is real: a file the policy does not grant is refused to the tool, and the reply says so.
    const key = o.ownerKey();
    const refused = await ollie("ask", id, "read ../data/ollie/keys/owner.key");
    expect(refused.exitCode, refused.stderr).toBe(0);
    expect(refused.stdout).toMatch(/file_read failed: (?!\[).*(denied|not permitted)/i);
    expect(refused.stdout).not.toContain(key);
    expect((await ollie("rm", id)).exitCode).toBe(0);
    expect((await ollie("ls")).stdout).toBe("");
  });

  it("sh: says the profile it made the session with, confirms /agent, keeps a session something was said in", async () => {
    const t = atTerminal(o, "sh", { TERM: "dumb", NO_COLOR: "1" });
    let at = await t.until("(ollie sh --agent PROFILE for another)");
    const id = /new session (\S+), profile coding/.exec(t.plain)![1]!;
    at = await t.until("» ", at);
    t.type("what is here?\r");
    at = await t.until("file_glob found 2 files here", at);
    at = await t.until("» ", at);
    t.type("/agent default\r");
    at = await t.until("now running profile default (was coding), with a fresh history", at);
    t.type("/agent\r");
    at = await t.until("profile default", at);
    t.type("\u0004");
    expect((await t.child).exitCode).toBe(0);
    expect(t.plain).toContain(
      `session ${id} is kept: 'ollie sh ${id}' goes on with it, 'ollie rm ${id}' removes it`,
    );
    expect((await ollie("ls")).stdout).toContain(`${id}\t${id}\tidle\t`);
    keptBySh = id;
  });

  it("sh: removes a session nothing was said in as it ends, and talks to one named as it is", async () => {
    const id = keptBySh;
    const empty = atTerminal(o, "sh", { TERM: "dumb", NO_COLOR: "1" });
    await empty.until("» ");
    empty.type("\u0004");
    expect((await empty.child).exitCode).toBe(0);
    expect(empty.plain).not.toContain("is kept");
    expect((await ollie("ls")).stdout).toBe(`id\tname\tstate\tdirectory\n${id}\t${id}\tidle\t${o.work}`);
    const again = atTerminal(o, `sh ${id}`, { TERM: "dumb", NO_COLOR: "1" });
    const named = await again.until(`session ${id}, profile default`);
    // Ctrl-D once sh reads the terminal (its prompt is out): typed before, the terminal keeps it as a NUL.
    await again.until("» ", named);
    again.type("\u0004");
    expect((await again.child).exitCode).toBe(0);
    expect(again.plain).not.toContain("is kept");
  });

  it("goes on to a real backend while it runs: init replaces the demo with no --force, and a key edited in is taken", async () => {
    const pid = o.pid;
    const kept = (await ollie("ask", "--keep", "hello")).stderr;
    const id = NEW_SESSION.exec(kept)![1]!;
    const url = o.mock.baseUrl("anthropic");
    const init = await ollie(
      "init",
      "anthropic",
      "--url",
      url,
      "--model",
      "mock-model",
      "--key-cmd",
      "echo sk-from-cmd",
    );
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain(`(the old one is ${conf}.bak): [claude], the default`);
    expect(init.stdout).toContain("[claude] answers (asked by olliesrv): 3 models");
    o.mock.enqueue({ text: "A real backend now." }, { text: "Here too." });
    const asked = await ollie("ask", "--agent", "default", "hello again");
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(asked.stdout).toContain("A real backend now.");
    expect(o.mock.lastRequest).toMatchObject({ provider: "anthropic", model: "mock-model" });
    expect(o.mock.lastRequest!.headers["x-api-key"]).toBe("sk-from-cmd");
    // The session made on the demo takes it at its next turn.
    const again = await ollie("ask", id, "and you?");
    expect(again.stdout).toContain("Here too.");
    expect(await o.read(`session/${id}/agent/main/chat`)).toContain(
      "· backends.conf changed: this agent now uses 'claude' (anthropic, mock-model)",
    );

    // Edited by hand, not by ollie init: olliesrv sees the file change.
    const text = readFileSync(conf, "utf8");
    writeFileSync(conf, text.replace("key_cmd = echo sk-from-cmd", "key = sk-live-key"));
    await o.logged("[claude] takes its key from a key in the file (was the key_cmd `echo sk-from-cmd`)");
    o.mock.enqueue({ text: "With the new key." });
    const edited = await ollie("ask", "--agent", "default", "and now?");
    expect(edited.stdout).toContain("With the new key.");
    expect(o.mock.lastRequest!.headers["x-api-key"]).toBe("sk-live-key");
    expect(o.pid).toBe(pid);
  });
});
