import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { processGone } from "@ollie/sandbox/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OLLIE, type Ollie, startOllie, WAIT } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

type Message = { role: string; content?: string | null };

const text = (m: Message | undefined) => String(m?.content ?? "");
const lastUser = (messages: Message[]) => text(messages.findLast((m) => m.role === "user"));

/**
 * The model, for every agent at once. A fed agent notes each batch. An observed agent, asked to read a
 * missing file, tries twice and gives up; told something by another agent, it says so. The observer writes
 * to the observed agent once it has seen two failed calls, and otherwise has nothing to add.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  if (text(messages[0]).includes("You are an observer")) {
    if (last.role === "tool") return { text: "Told it." };
    const seen = messages.filter((m) => m.role === "user").map(text);
    const failures = seen.join("\n").match(/file_read \{"path":"missing.txt"\} → FAILED/g)?.length ?? 0;
    const wrote = messages.some((m) => m.role === "assistant" && JSON.stringify(m).includes("client_9p"));
    const observed = /^\[observing (\S+)\]/.exec(lastUser(messages))?.[1];
    if (failures >= 2 && !wrote && observed)
      return {
        toolCalls: [
          {
            name: "client_9p",
            arguments: {
              op: "write",
              path: `peer/${observed}`,
              data: "file_read failed twice on missing.txt.",
            },
          },
        ],
      };
    return { text: "Nothing to add." };
  }
  const prompt = lastUser(messages);
  if (prompt.startsWith("[feed from")) return { text: `Noted ${prompt.split("\n").length - 1} lines.` };
  if (prompt.startsWith("[from=")) return { text: "Understood." };
  if (last.role === "tool") {
    const tries = messages.filter((m) => m.role === "tool").length;
    if (tries >= 2) return { text: "I cannot read it." };
  }
  return { toolCalls: [{ name: "file_read", arguments: { path: "missing.txt" } }] };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-feed-", { mock: { replies: model } });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o);

/** The prompts an agent got from a feed, in order, as their lines. */
async function fedPrompts(agent: string): Promise<string[][]> {
  const history = JSON.parse(await o.read(`${agent}/context`)) as Message[];
  return history
    .filter((m) => m.role === "user" && text(m).startsWith("[feed from"))
    .map((m) => text(m).split("\n"));
}

/** Waits until `child` has written `pattern` to its standard error; returns all it wrote there. */
function stderrOf(child: ReturnType<typeof ollie>) {
  let said = "";
  child.stderr!.on("data", (c: Buffer) => {
    said += c.toString();
  });
  return {
    get text() {
      return said;
    },
    async until(pattern: RegExp): Promise<string> {
      await vi.waitFor(() => expect(said).toMatch(pattern), WAIT);
      return said;
    },
  };
}

describe("ollie feed", () => {
  it("prompts the agent with a command's lines in batches, nothing lost, and ends with the command", async () => {
    const id = await o.create(`cwd=${o.work} name=fed`);
    const agent = `session/${id}/agent/main`;
    // Bursts written at once (so each arrives whole), a pause between them, a line on stderr, then status 3.
    writeFileSync(
      join(o.work, "emit.sh"),
      [
        "for burst in 1 2 3; do",
        '  printf "burst $burst line %s\\n" 1 2 3 4 5 6 7 8 9 10',
        "  sleep 0.3",
        "done",
        "echo 'to stderr' >&2",
        "printf 'no newline at the end'",
        "exit 3",
      ].join("\n"),
    );
    const feeding = ollie("feed", id, "--window", "0.1", "--", "sh", "emit.sh");
    const said = stderrOf(feeding);
    const fed = await feeding;
    expect(fed.exitCode, said.text).toBe(3);
    expect(said.text).toMatch(/ollie: sh emit\.sh exited with status 3; \d+ batch(es)? sent to session /);
    const sent = [...said.text.matchAll(/^ollie: batch (\d+): (\d+) lines? → prompt (\d+)$/gm)];
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.reduce((n, m) => n + Number(m[2]), 0)).toBe(32);

    // The last batch's turn ends: every batch is in the history by then.
    const lastTicket = sent.at(-1)![3]!;
    await o.read(`${agent}/prompts/${lastTicket}`);
    const prompts = await fedPrompts(agent);
    expect(prompts).toHaveLength(sent.length);
    const lines = prompts.flatMap((p) => p.slice(1)).filter((l) => !l.startsWith("[sh emit.sh exited"));
    const expected = [1, 2, 3].flatMap((b) =>
      Array.from({ length: 10 }, (_, i) => `burst ${b} line ${i + 1}`),
    );
    expect(lines).toEqual([...expected, "to stderr", "no newline at the end"]);
    // A burst came whole, so it went in one batch.
    expect(Math.max(...prompts.map((p) => p.length - 1))).toBeGreaterThanOrEqual(10);
    expect(prompts[0]![0]).toMatch(/^\[feed from sh emit\.sh: \d+ lines?\]$/);
    expect(prompts.at(-1)!.at(-1)).toBe("[sh emit.sh exited with status 3; that was the feed's last batch]");
  });

  it("stops the command's process group on Ctrl-C, and ends when the session is killed", async () => {
    const id = await o.create(`cwd=${o.work} name=stopped`);
    // The command's own child must end with it: the whole group is stopped.
    const script = "sleep 31.9 & echo $! > pid-$0; echo started; wait";
    const feeding = ollie("feed", id, "--window", "0", "--", "sh", "-c", script, "one");
    const said = stderrOf(feeding);
    await said.until(/batch 1: 1 line/);
    const pid = Number(readFileSync(join(o.work, "pid-one"), "utf8"));
    feeding.kill("SIGINT");
    const stopped = await feeding;
    expect(stopped.exitCode).toBe(130);
    expect(stopped.stderr).toMatch(/ollie: stopped by SIGINT$/m);
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);

    const again = ollie("feed", id, "--", "sh", "-c", script, "two");
    const waiting = stderrOf(again);
    const pidFile = join(o.work, "pid-two");
    await vi.waitFor(
      () => expect(existsSync(pidFile) && readFileSync(pidFile, "utf8")).toMatch(/^\d+\n$/),
      WAIT,
    );
    const second = Number(readFileSync(pidFile, "utf8"));
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    const ended = await again;
    expect(ended.exitCode, waiting.text).toBe(1);
    expect(ended.stderr).toContain(`session ${id} was killed`);
    await vi.waitFor(() => expect(processGone(second)).toBe(true), WAIT);
  });

  it("follows a file from its end, and reads standard input when given no command", async () => {
    const id = await o.create(`cwd=${o.work} name=logged`);
    const agent = `session/${id}/agent/main`;
    const log = join(o.work, "app.log");
    writeFileSync(log, "old line, before the feed\n");
    const following = ollie("feed", id, "--window", "0.1", "--file", "app.log");
    const said = stderrOf(following);
    // tail starts at the end of the file whenever it gets there: lines go in until one comes through.
    for (let n = 0; !/batch 1:/.test(said.text); n++) {
      appendFileSync(log, `ping ${n}\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    appendFileSync(log, "the line that matters\n");
    await vi.waitFor(
      async () => expect((await fedPrompts(agent)).flat()).toContain("the line that matters"),
      WAIT,
    );
    following.kill("SIGTERM");
    expect((await following).exitCode).toBe(143);
    const prompts = await fedPrompts(agent);
    expect(prompts[0]![0]).toMatch(/^\[feed from app\.log: /);
    expect(prompts.flat()).not.toContain("old line, before the feed");

    const piped = await execa(process.execPath, [OLLIE, "-a", o.address, "feed", id], {
      cwd: o.work,
      env: o.env,
      extendEnv: false,
      reject: false,
      input: "from a pipe\nand another\n",
    });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/standard input ended; 1 batch sent/);
    await vi.waitFor(
      async () =>
        expect((await fedPrompts(agent)).at(-1)).toEqual([
          "[feed from standard input: 2 lines]",
          "from a pipe",
          "and another",
          "[standard input ended; that was the feed's last batch]",
        ]),
      WAIT,
    );
  });
});

describe("ollie observe", () => {
  it("prompts an observer with the events, which writes its finding to the observed agent; Ctrl-C ends it", async () => {
    const id = await o.create(`cwd=${o.work} name=watched`);
    const agent = `session/${id}/agent/main`;
    const observing = ollie("observe", id, "--window", "0.2");
    const said = stderrOf(observing);
    let out = "";
    observing.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
    });
    await vi.waitFor(() => expect(out).toMatch(/^\d{19}-[0-9a-f]{6}\n$/), WAIT);
    const observer = out.trim();
    const watcher = `session/${observer}/agent/main`;
    expect(await o.read(`${watcher}/cfg`)).toContain(`cwd=${o.work}`);
    expect(await o.read(`${watcher}/cfg`)).toContain("profile=observer");

    await o.fsys.writeFile(`${agent}/prompt`, "Read missing.txt");
    const finding = `[from=${observer}.main]\nfile_read failed twice on missing.txt.`;
    await vi.waitFor(async () => expect(await o.read(`${agent}/chat`)).toContain(finding), WAIT);
    await vi.waitFor(async () => expect(await o.read(`${agent}/chat`)).toContain("Understood."), WAIT);

    // What the observer was shown: compact lines, the failures among them.
    const seen = (JSON.parse(await o.read(`${watcher}/context`)) as Message[])
      .filter((m) => m.role === "user")
      .map(text);
    expect(seen[0]).toMatch(new RegExp(`^\\[observing ${id}\\] \\d+ events?:\\n`));
    expect(seen.join("\n")).toMatch(/main ← prompt: Read missing\.txt/);
    expect(seen.join("\n").match(/main file_read \{"path":"missing.txt"\} → FAILED/g)).toHaveLength(2);
    expect(said.text).toMatch(/^ollie: batch 1: \d+ events? → prompt \d+$/m);

    observing.kill("SIGINT");
    const ended = await observing;
    expect(ended.exitCode).toBe(130);
    expect(ended.stderr).toContain(`killed observer session ${observer}`);
    expect(await o.read("session/idx")).not.toContain(observer);
    expect(await o.read("session/idx")).toContain(id);
  });

  it("ends when the observed session does, killing the observer unless --keep", async () => {
    for (const keep of [false, true]) {
      const id = await o.create(`cwd=${o.work}`);
      const observing = ollie("observe", id, ...(keep ? ["--keep"] : []));
      let out = "";
      observing.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
      });
      await vi.waitFor(() => expect(out).toMatch(/\n$/), WAIT);
      const observer = out.trim();
      await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
      const ended = await observing;
      expect(ended.exitCode, ended.stderr).toBe(0);
      expect(ended.stderr).toContain("the observed session was killed");
      if (keep) {
        expect(await o.read("session/idx")).toContain(observer);
        await o.fsys.writeFile(`session/${observer}/ctl`, "kill\n");
      } else expect(await o.read("session/idx")).not.toContain(observer);
    }
  });

  it("refuses a session that is not there", async () => {
    const r = await ollie("observe", "no-such-session");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('no session "no-such-session"');
  });
});
