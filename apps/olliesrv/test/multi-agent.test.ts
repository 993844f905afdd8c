import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, untilTurns, watchStates } from "./harness.js";

type Message = { role: string; content?: string | null };

const callbacksIn = (messages: Message[]) =>
  messages.filter((m) => m.role === "user" && String(m.content).includes("\nSTATUS: ")).length;

/**
 * The model, for every agent at once: an orchestrator fans three parts out to workers, acknowledges each
 * result, and sums up once all three are in; when asked, it messages a worker through peer/. A worker writes
 * its part with file_write, or sleeps in the shell when told to.
 */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  const text = String(last.content ?? "");
  if (String(messages[0]?.content).includes("You are an orchestrator")) {
    if (last.role === "tool") return { text: "The workers are on it; I will hear from them." };
    if (text.startsWith("Tell worker-2"))
      return {
        toolCalls: [
          { name: "client_9p", arguments: { op: "write", path: "peer/worker-2", data: "Add a line." } },
        ],
      };
    if (!text.includes("\nSTATUS: "))
      return {
        toolCalls: [1, 2, 3].map((n) => ({
          name: "subagent_spawn",
          arguments: { task: `Write part ${n} into part${n}.txt`, name: `worker-${n}` },
        })),
      };
    const heard = callbacksIn(messages);
    return { text: heard < 3 ? `Heard ${heard} of 3.` : "All three parts are written." };
  }
  if (last.role === "tool") return { text: "Wrote it." };
  if (text.includes("Add a line.")) return { text: "Added." };
  if (text.includes("Sleep")) return { toolCalls: [{ name: "shell", arguments: { command: "sleep 31.7" } }] };
  const n = /part (\d)/.exec(text)?.[1] ?? "0";
  return { toolCalls: [{ name: "file_write", arguments: { path: `part${n}.txt`, content: `part ${n}\n` } }] };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-multi-", { mock: { replies: model } });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const sessions = async () =>
  (await o.read("session/idx"))
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t"));

describe("multi-agent work over files", () => {
  it("fans out to three workers whose results come back as queued prompts; killing the parent stops them", async () => {
    const parent = await o.create(`agent=orchestrator cwd=${o.work} name=orchestrator`);
    const agent = `session/${parent}/agent/main`;
    await o.fsys.writeFile(`${agent}/prompt`, "Write the three parts.");
    await untilTurns(o, agent, 4);

    const workers = (await sessions()).filter(([, name]) => name?.startsWith("worker-"));
    expect(workers.map(([, name]) => name).sort()).toEqual(["worker-1", "worker-2", "worker-3"]);
    for (const n of [1, 2, 3]) expect(readFileSync(join(o.work, `part${n}.txt`), "utf8")).toBe(`part ${n}\n`);
    const history = JSON.parse(await o.read(`${agent}/context`)) as Message[];
    const callbacks = history.filter((m) => m.role === "user" && String(m.content).startsWith("[from="));
    expect(callbacks.map((m) => String(m.content).replace(/\d{19}-[0-9a-f]{6}/, "ID")).sort()).toEqual(
      [1, 2, 3].map((n) =>
        [
          "[from=ID.main]",
          "STATUS: done",
          "SUMMARY: Wrote it.",
          `ARTIFACTS: ${join(o.work, `part${n}.txt`)}`,
        ].join("\n"),
      ),
    );
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "All three parts are written." });
    const calls = history.flatMap((m) => (m as { toolCalls?: Array<{ name: string }> }).toolCalls ?? []);
    expect(calls.map((c) => c.name)).toEqual(["subagent_spawn", "subagent_spawn", "subagent_spawn"]);
    for (const [id] of workers) {
      const cfg = await o.read(`session/${id}/agent/main/cfg`);
      expect(cfg).toContain(`uname=${id}.main`);
      expect(await o.read(`session/${id}/agent/main/chat`)).toContain(`[from=${parent}.main]`);
    }

    // A message to a peer, by name: stamped with its proven sender, and answered like any task from the parent.
    const worker2 = workers.find(([, name]) => name === "worker-2")![0]!;
    await o.fsys.writeFile(`${agent}/prompt`, "Tell worker-2 to add a line.");
    await untilTurns(o, `session/${worker2}/agent/main`, 2);
    await untilTurns(o, agent, 6);
    expect(await o.read(`session/${worker2}/agent/main/chat`)).toContain(
      `[from=${parent}.main]\nAdd a line.`,
    );
    expect(await o.read(`${agent}/chat`)).toContain(`[from=${worker2}.main]\nSTATUS: done\nSUMMARY: Added.`);

    // Killing the parent ends its children, a running tool included.
    const worker1 = workers.find(([, name]) => name === "worker-1")![0]!;
    const sleeping = watchStates(o, `session/${worker1}/agent/main`);
    await o.fsys.writeFile(`session/${worker1}/agent/main/prompt`, "Sleep.");
    await (await sleeping).until("calling: shell");
    await vi.waitFor(() => expect(sleepers()).toHaveLength(1), { timeout: 5000 });
    await o.fsys.writeFile(`session/${parent}/ctl`, "kill\n");
    expect(await sessions()).toEqual([]);
    expect(sleepers()).toEqual([]);
    for (const [id] of workers)
      expect(existsSync(join(o.root, "data", "ollie", "sessions", `${id}.json`))).toBe(false);
    const killed = `killed session ${parent} and 3 it spawned`;
    expect(await o.logged(killed)).toContain(killed);
  });
});

/** The worker's `sleep 31.7`, if it still runs. */
function sleepers(): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").join(" ");
        return cmd.startsWith("sleep 31.7") && !processGone(Number(p)) ? [p] : [];
      } catch {
        return [];
      }
    });
}
