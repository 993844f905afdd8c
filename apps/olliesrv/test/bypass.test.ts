import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import type { File } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { askerFixture } from "./asker-fixture.js";
import { type Ollie, startOllie, untilTurns, WAIT } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

/**
 * An agent asks, through its bypass_request tool, to run a command outside the sandbox; olliesrv shows the
 * request to the owner, runs the notification command, writes the agent's chat, and passes on the owner's
 * decision (ollie approve, ollie deny); another agent may neither see what waits nor decide.
 */

type Message = { role: string; content?: string | null };

/** The model: the asker asks twice (the first is denied); the meddler tries to decide request N. */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  const firstPrompt = String(messages.find((m) => m.role === "user")?.content ?? "");
  if (firstPrompt === "Approve your own.") {
    // Files a request with client_9p (which does not wait), finds its number, and tries to approve it.
    const tools = messages.filter((m) => m.role === "tool").length;
    const client = (args: Record<string, string>): MockReply => ({
      toolCalls: [{ name: "client_9p", arguments: args }],
    });
    if (tools === 0)
      return client({
        op: "write",
        path: "bypass/new",
        data: '{"operation":"touch_marker","reason":"mine"}',
      });
    if (tools === 1) return client({ op: "ls", path: "bypass" });
    if (tools === 2) {
      const newest = Math.max(
        ...String(last.content)
          .split("\n")
          .map((l) => Number.parseInt(l, 10) || 0),
      );
      return client({ op: "write", path: `bypass/${newest}/ctl`, data: "approve\n" });
    }
    return { text: "Tried." };
  }
  const meddle = /Decide (\d+)/.exec(firstPrompt);
  if (meddle) {
    if (last.role === "tool") return { text: "Tried." };
    const id = meddle[1];
    return {
      toolCalls: [
        { name: "client_9p", arguments: { op: "write", path: `bypass/${id}/ctl`, data: "approve\n" } },
        { name: "client_9p", arguments: { op: "read", path: "bypass/pending" } },
        { name: "client_9p", arguments: { op: "read", path: `bypass/${id}/decision` } },
      ],
    };
  }
  const ask = (reason: string): MockReply => ({
    toolCalls: [{ name: "bypass_request", arguments: { operation: "touch_marker", reason } }],
  });
  if (last.role !== "tool") return ask("the test needs a file outside");
  if (String(last.content).includes("denied")) return ask("second try:\nit is needed");
  return { text: "Done." };
}

let o: Ollie;
let marker: string;
let notified: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-bypass-", {
    mock: { replies: model },
    setup: (config) => {
      const root = join(config, "..", "..");
      notified = join(root, "notified.txt");
      const script = join(root, "record-notice.sh");
      writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${notified}'\n`);
      chmodSync(script, 0o755);
      writeFileSync(
        join(config, "notify.conf"),
        `# what to run when an agent asks\nbypass = ${script} "{agent} asks to {operation}: {reason}" {id}\n`,
      );
      marker = askerFixture(config, ["client_9p"]);
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const ollie = ollieCommand(() => o);

/** The next pending list `wait` gives that lists a request other than `except`. */
async function nextPending(wait: File, except?: number): Promise<{ id: number; line: string }> {
  for (;;) {
    const listing = (await wait.readAll()).toString();
    const line = listing.split("\n").find((l) => l !== "" && Number(l.split("\t")[0]) !== except);
    if (line) return { id: Number(line.split("\t")[0]), line };
  }
}

const toolResults = async (agent: string) =>
  (JSON.parse(await o.read(`${agent}/context`)) as Message[])
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));

describe("bypass requests from inside", () => {
  it("are shown to the owner, decided with ollie approve and ollie deny, and reported to the agent", async () => {
    const a = await o.create(`agent=asker cwd=${o.work}`);
    const asker = `session/${a}/agent/main`;
    const wait = await o.fsys.open("bypass/wait");
    await o.fsys.writeFile(`${asker}/prompt`, "Make the marker.");

    const first = await nextPending(wait);
    expect(first.line).toBe(
      `${first.id}\t${a}.main\ttouch_marker\ttouch ${marker}\tthe test needs a file outside`,
    );
    expect(await o.read("bypass/pending")).toBe(`${first.line}\n`);
    expect(JSON.parse(await o.read(`bypass/${first.id}/request`))).toMatchObject({
      id: first.id,
      agent: `${a}.main`,
      operation: "touch_marker",
      command: `touch ${marker}`,
      cwd: o.work,
      decision: "pending",
    });
    expect(await o.read(`bypass/${first.id}/decision`)).toBe("pending\n");
    expect((await ollie("bypass")).stdout).toBe(first.line);

    // Another agent may not decide, nor see what waits, nor read a request of a session it is not in.
    const b = await o.create(`agent=asker cwd=${o.work}`);
    await o.fsys.writeFile(`session/${b}/agent/main/prompt`, `Decide ${first.id}`);
    await untilTurns(o, `session/${b}/agent/main`, 1);
    expect(await toolResults(`session/${b}/agent/main`)).toEqual([
      expect.stringContaining(`write bypass/${first.id}/ctl: bypass/${first.id}/ctl: permission denied`),
      expect.stringContaining("read bypass/pending: bypass/pending: permission denied"),
      expect.stringContaining(
        `read bypass/${first.id}/decision: bypass/${first.id}/decision: permission denied`,
      ),
    ]);
    for (const line of [
      `[audit]: denied ${b}.main write /bypass/${first.id}/ctl\n`,
      `[audit]: denied ${b}.main read /bypass/pending\n`,
    ])
      expect(await o.logged(line)).toContain(line);
    expect(await o.read(`bypass/${first.id}/decision`)).toBe("pending\n");

    const denied = await ollie("deny", String(first.id), "not", "now");
    expect([denied.exitCode, denied.stdout, denied.stderr]).toEqual([
      0,
      `bypass request ${first.id}: denied by ${o.owner}: not now`,
      "",
    ]);
    expect(existsSync(marker)).toBe(false);

    // The model asks again; this time the owner approves, and the command runs outside the sandbox.
    const second = await nextPending(wait, first.id);
    expect(second.line).toBe(
      `${second.id}\t${a}.main\ttouch_marker\ttouch ${marker}\tsecond try:\\nit is needed`,
    );
    const approved = await ollie("approve", String(second.id));
    expect([approved.exitCode, approved.stdout]).toEqual([
      0,
      `bypass request ${second.id}: approved by ${o.owner}`,
    ]);
    await untilTurns(o, asker, 1);
    await wait.close();
    expect(existsSync(marker)).toBe(true);
    expect(await o.read("bypass/pending")).toBe("");
    expect(await o.read(`bypass/${second.id}/status`)).toBe("exited 0\n");

    const [deniedResult, approvedResult] = await toolResults(asker);
    expect(deniedResult).toBe(
      `bypass request ${first.id} (touch_marker: touch ${marker}): denied by ${o.owner}: not now\nIt did not run. Do not ask again for the same thing; go on without it, or tell the user what is blocked.\n`,
    );
    expect(approvedResult).toBe(
      `bypass request ${second.id} (touch_marker: touch ${marker}): approved by ${o.owner}; exited 0\n(no output)\n`,
    );
    const chat = await o.read(`${asker}/chat`);
    const waiting = (id: number) =>
      `waiting for ${o.owner} (ollie approve ${id}, or ollie deny ${id} REASON)`;
    expect(chat).toContain(
      `· bypass request ${first.id}: touch_marker (touch ${marker}) outside the sandbox, because the test needs a file outside; ${waiting(first.id)}\n· bypass request ${first.id} denied by ${o.owner}: not now\n`,
    );
    expect(chat).toContain(
      `· bypass request ${second.id}: touch_marker (touch ${marker}) outside the sandbox, because second try: it is needed; ${waiting(second.id)}\n· bypass request ${second.id} approved by ${o.owner}\n`,
    );

    // The notification command ran once per request, its arguments passed as they were, with no shell.
    await vi.waitFor(
      () =>
        expect(readLines(notified)).toEqual([
          `${a}.main asks to touch_marker: the test needs a file outside`,
          String(first.id),
          `${a}.main asks to touch_marker: second try: it is needed`,
          String(second.id),
        ]),
      WAIT,
    );
    const none = await ollie("bypass");
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([0, "", "no bypass request is waiting"]);
  });

  it("never lets the asking agent approve its own request", async () => {
    const c = await o.create(`agent=asker cwd=${o.work}`);
    const agent = `session/${c}/agent/main`;
    const wait = await o.fsys.open("bypass/wait");
    await o.fsys.writeFile(`${agent}/prompt`, "Approve your own.");
    const { id } = await nextPending(wait);
    await wait.close();
    await untilTurns(o, agent, 1);
    expect((await toolResults(agent)).at(-1)).toContain(
      `write bypass/${id}/ctl: bypass/${id}/ctl: permission denied`,
    );
    const line = `[audit]: denied ${c}.main write /bypass/${id}/ctl\n`;
    expect(await o.logged(line)).toContain(line);
    expect(await o.read(`bypass/${id}/decision`)).toBe("pending\n");
    // The owner decides; the agent hears of it in its chat.
    expect((await ollie("deny", String(id))).stdout).toBe(`bypass request ${id}: denied by ${o.owner}`);
    expect(await o.read(`${agent}/chat`)).toContain(`· bypass request ${id} denied by ${o.owner}\n`);
  });

  it("refuses what the owner cannot decide, and a request the owner files", async () => {
    const notPending = await ollie("approve", "1");
    expect([notPending.exitCode, notPending.stderr]).toEqual([
      1,
      `ollie: bypass/1/ctl: approve: bypass request 1 is not pending: denied by ${o.owner}: not now`,
    ]);
    const missing = await ollie("deny", "999");
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("bypass/999");
    const usage = await ollie("approve", "x");
    expect([usage.exitCode, usage.stderr.split("\n")[0]]).toEqual([
      2,
      "ollie: approve needs a bypass request's number (ollie bypass lists them)",
    ]);
    const f = await o.fsys.open("bypass/new", 2);
    await expect(f.write(JSON.stringify({ operation: "touch_marker", reason: "me" }))).rejects.toThrow(
      "bypass requests are filed by agents",
    );
    await f.close();
  });
});

function readLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}
