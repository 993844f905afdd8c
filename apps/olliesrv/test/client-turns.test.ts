import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ChatPiece, connect, type OllieClient, type OllieEvent, RefusedError } from "@ollie/client";
import { processGone } from "@ollie/sandbox/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT } from "./harness.js";

let o: Ollie;
let client: OllieClient;
beforeAll(async () => {
  o = await startOllie("olliesrv-client-");
  // As the owner, as `ollie` finds it: the socket in $NAMESPACE and the key under $XDG_DATA_HOME.
  client = await connect({ env: o.env });
});
afterAll(async () => {
  client.close();
  await o.stop();
  await o.remove();
});

/** A directory of its own under the daemon's work directory. */
function workDir(name: string): string {
  const dir = join(o.work, name);
  mkdirSync(dir);
  return dir;
}

describe("@ollie/client against olliesrv", () => {
  it("streams a prompt's chat while its turn runs, then gives its outcome and reply", async () => {
    const dir = workDir("streamed");
    await execa("mkfifo", [join(dir, "gate")]);
    const session = await client.newSession({ agent: "coding", cwd: dir, name: "streamed" });
    expect((await client.sessions()).find((s) => s.id === session.id)).toEqual({
      id: session.id,
      name: "streamed",
      state: "idle",
      cwd: dir,
    });
    const agent = session.agent();
    // The turn cannot end before the gate opens, and the test opens it only once the reply's first words
    // have come: a chat delivered at the turn's end would leave the test waiting to its timeout.
    o.mock.enqueue(
      {
        text: "Waiting at the gate.",
        toolCalls: [{ name: "shell", arguments: { command: "read w < gate" } }],
      },
      { text: "Through the gate.", chunkSize: 3 },
    );
    const prompt = await agent.prompt("Go through the gate");
    expect(prompt.number).toBe(1);
    const pieces: ChatPiece[] = [];
    let opened = false;
    for await (const piece of prompt.chat()) {
      pieces.push(piece);
      if (
        !opened &&
        pieces
          .map((p) => p.text)
          .join("")
          .includes("Waiting at the gate.")
      ) {
        opened = true;
        await writeFile(join(dir, "gate"), "go\n");
      }
    }
    const { outcome, reply } = await prompt.ended;
    expect(outcome).toEqual({ status: "done", text: "done" });
    expect(reply).toBe("Through the gate.");
    const said = (kind: ChatPiece["kind"]) =>
      pieces
        .filter((p) => p.kind === kind)
        .map((p) => p.text)
        .join("");
    expect(said("prompt")).toBe("» Go through the gate\n\n");
    expect(said("call")).toBe('→ shell {"command":"read w < gate"}\n');
    expect(said("result")).toMatch(/^← shell: /);
    expect(said("text")).toBe("Waiting at the gate.\nThrough the gate.\n\n");
    // The pieces are the chat, byte for byte, each where the chat has it.
    const chat = await agent.chatText();
    expect(pieces.map((p) => p.text).join("")).toBe(chat);
    for (const p of pieces)
      expect(
        Buffer.from(chat)
          .subarray(p.offset, p.offset + Buffer.byteLength(p.text))
          .toString(),
      ).toBe(p.text);
    expect(await agent.outcome()).toEqual(outcome);
    expect(await agent.lastPrompt()).toBe("Go through the gate");
    expect(await agent.turns()).toBe(1);
    const usage = await agent.usage();
    expect(usage.session?.requests).toBe(2);
    expect(usage.turn?.requests).toBe(2);
    expect(await agent.cost()).toMatchObject({ session: expect.any(Number), lastTurn: expect.any(Number) });
    expect(await agent.cfg()).toMatchObject({
      name: "main",
      uname: agent.uname,
      profile: "coding",
      cwd: dir,
      state: "idle",
    });
  });

  it("gives a session's events as typed records, from the subscription to the session's end", async () => {
    const dir = workDir("events");
    const session = await client.newSession({ agent: "coding", cwd: dir });
    const events = await session.events({
      topics: ["agent.*.state", "*.tool", "*.turn", "*.usage", "session.*"],
    });
    o.mock.enqueue(
      { text: "Writing.", toolCalls: [{ name: "file_write", arguments: { path: "e.txt", content: "e" } }] },
      { text: "Written." },
    );
    const prompt = await session.agent().prompt("Write e.txt");
    const seen: OllieEvent[] = [];
    const ended = (e: OllieEvent) => e.kind === "agent" && e.type === "turn";
    const idle = (e: OllieEvent) => e.kind === "agent" && e.type === "state" && e.state === "idle";
    for await (const event of events) {
      seen.push(event);
      if (seen.some(ended) && seen.some(idle)) break;
    }
    const states = seen.flatMap((e) => (e.kind === "agent" && e.type === "state" ? [e.state] : []));
    // The coding profile's prompt commands run as its agent is made, at the first prompt.
    expect(states).toEqual(["prompt commands", "thinking", "calling: file_write", "thinking", "idle"]);
    const tool = seen.find((e) => e.kind === "agent" && e.type === "tool");
    if (tool?.kind !== "agent" || tool.type !== "tool") throw new Error("no tool record");
    expect(tool.agent).toBe("main");
    expect(tool.call).toMatchObject({ name: "file_write", arguments: { path: "e.txt", content: "e" } });
    expect(tool.result).toMatchObject({ name: "file_write", toolCallId: tool.call.id });
    expect(tool.result.content).toContain("e.txt");
    const usage = seen.filter((e) => e.kind === "agent" && e.type === "usage");
    expect(usage).toHaveLength(2);
    const turn = seen.find(ended);
    if (turn?.kind !== "agent" || turn.type !== "turn") throw new Error("no turn record");
    expect(turn.outcome).toMatchObject({ status: "done", steps: 1, reply: { content: "Written." } });
    expect(turn.outcome.usage.requests).toBe(2);
    expect(
      seen.every((e, i) => i === 0 || (e.kind !== "dropped" && e.seq > (seen[i - 1] as { seq: number }).seq)),
    ).toBe(true);
    expect((await prompt.ended).outcome.status).toBe("done");

    // The session's own records, then its end: the subscription ends after `kill`.
    const more = await session.events({ topics: "session.*" });
    await session.ctl("rename events-renamed");
    await session.kill();
    const rest: OllieEvent[] = [];
    for await (const event of more) rest.push(event);
    expect(rest.map((e) => (e.kind === "session" ? e.type : e.kind))).toEqual(["rename", "kill"]);
    expect(rest[0]).toMatchObject({ kind: "session", type: "rename", name: "events-renamed" });
    await events.close();
    expect((await client.sessions()).some((s) => s.id === session.id)).toBe(false);
  });

  it("stops a turn mid-tool: the process dies, the prompt ends interrupted, and a second stop finds nothing", async () => {
    const dir = workDir("stopped");
    const session = await client.newSession({ agent: "coding", cwd: dir });
    const agent = session.agent();
    o.mock.enqueue({
      toolCalls: [{ name: "shell", arguments: { command: "echo $$ > slow.pid; sleep 100" } }],
    });
    const states = await agent.watchState();
    const prompt = await agent.prompt("Run the slow thing");
    const seen: string[] = [];
    for await (const state of states) {
      seen.push(state);
      if (state === "calling: shell") break;
    }
    // A wait answers the state as it is when read: a reader that comes late skips what it did not see.
    expect(seen.at(-1)).toBe("calling: shell");
    const pidFile = join(dir, "slow.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await agent.stop()).toBe(true);
    expect((await prompt.ended).outcome).toEqual({ status: "interrupted", text: "interrupted" });
    expect(await agent.waitState({ until: "idle" })).toBe("idle");
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    expect(await agent.stop()).toBe(false);
    expect(await agent.waitTurns(1)).toBe(1);
    await session.kill();
  });

  it("gives up its waits when their signal aborts, and leaves the turn running", async () => {
    const dir = workDir("aborted");
    await execa("mkfifo", [join(dir, "gate")]);
    const session = await client.newSession({ agent: "coding", cwd: dir });
    const agent = session.agent();
    const states = await agent.events({ types: ["state"] });
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "read w < gate" } }] },
      { text: "Through." },
    );
    const leaving = new AbortController();
    const prompt = await agent.prompt("Wait at the gate", { signal: leaving.signal });
    expect(await agent.waitState({ until: (s) => s.startsWith("calling") })).toBe("calling: shell");
    const ended = prompt.ended;
    leaving.abort(new Error("no longer waiting"));
    await expect(ended).rejects.toThrow("no longer waiting");
    // Only the wait was given up: the connection serves on, and the turn runs until the gate opens.
    expect(await agent.state()).toBe("calling: shell");
    await writeFile(join(dir, "gate"), "go\n");
    expect(await agent.waitState({ until: "idle" })).toBe("idle");
    expect(await agent.outcome()).toEqual({ status: "done", text: "done" });
    const seen: string[] = [];
    for await (const e of states) {
      if (e.kind !== "agent" || e.type !== "state") throw new Error(`not a state: ${JSON.stringify(e)}`);
      seen.push(e.state);
      if (e.state === "idle") break;
    }
    expect(seen).toEqual(["prompt commands", "thinking", "calling: shell", "thinking", "idle"]);
    await session.kill();
  });

  it("forks a session, and answers a refused command with the daemon's reason", async () => {
    const dir = workDir("forked");
    const session = await client.newSession({ cwd: dir, name: "original" });
    o.mock.enqueue({ text: "Remembered." });
    await (await session.agent().prompt("Remember this")).ended;
    const fork = await session.fork({ name: "the-fork" });
    expect(fork.id).not.toBe(session.id);
    expect((await client.findSession("the-fork")).id).toBe(fork.id);
    expect(await fork.agent().chatText()).toContain("» Remember this");
    expect(await session.agents()).toEqual(["main"]);

    const refused = await session.ctl("frobnicate").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RefusedError);
    expect(refused).toMatchObject({
      path: `session/${session.id}/ctl`,
      reason: expect.stringContaining("frobnicate"),
    });
    await expect(client.newSession("colour=red")).rejects.toMatchObject({
      name: "RefusedError",
      path: "session/new",
      reason:
        "session spec:1:1: colour: unknown key (the keys are: agent, profile, cwd, remote, backend, model, name, callback, mcpServers, traceparent, tracestate)",
    });
    await fork.kill();
    await session.kill();
  });
});
