import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT } from "./harness.js";

// An agent idle for --idle-close seconds is parked: closed, its toolsrv connection with it, and made again
// at its next use from the snapshot it left, with the tools it had loaded. Three seconds leave the test time
// to see the connection open after a turn.
const IDLE_CLOSE_S = 3;
const PARKED = { timeout: IDLE_CLOSE_S * 1000 + WAIT.timeout, interval: 100 };

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-idle-", {
    args: ["--idle-close", String(IDLE_CLOSE_S)],
    setup: (configDir) => {
      // A tool of the user's, loaded during a turn: the connection dialled again must have it too.
      mkdirSync(join(configDir, "tools"), { recursive: true });
      writeFileSync(
        join(configDir, "tools", "where_am_i"),
        '#!/bin/sh\n# ollie:tool where_am_i\n# ollie:description Says where it runs.\necho "mine, in $(pwd)"\n',
        { mode: 0o755 },
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const stat = async (name: string) =>
  Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await o.read("stats"))?.[1] ?? Number.NaN);

/** The Unix sockets a process has open (its listeners and its connections). */
const sockets = (pid: number) =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;

/** The toolsrv olliesrv started: its child running toolsrv's entry point. */
function toolsrvPid(): number {
  const children = readFileSync(`/proc/${o.pid}/task/${o.pid}/children`, "utf8").trim().split(/\s+/);
  const pid = children
    .map(Number)
    .find((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("toolsrv"));
  if (pid === undefined)
    throw new Error(`olliesrv (${o.pid}) has no toolsrv child among ${children.join(" ")}`);
  return pid;
}

describe("an idle agent's toolsrv connection", () => {
  it("is closed once the agent has been idle a while, and dialled again, with its tools, at its next turn", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "tool_load", arguments: { names: ["where_am_i"] } }] },
      { toolCalls: [{ name: "where_am_i", arguments: {} }] },
      { text: "Here." },
    );
    await prompt(o, agent, "Where are you?");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    const toolsrv = toolsrvPid();
    const open = sockets(toolsrv);
    expect(await stat("toolsrv-connections")).toBe(1);

    await vi.waitFor(async () => expect(await stat("toolsrv-connections")).toBe(0), PARKED);
    // Closed at toolsrv's end too (olliesrv's own count moves with its HTTP connections to the provider).
    await vi.waitFor(() => expect(sockets(toolsrv)).toBe(open - 1), WAIT);
    // Parked, as a restored agent is paused; its state, usage (the last turn's too) and chat are still shown.
    expect(await stat("agents-live")).toBe(0);
    expect(await o.read(`${agent}/state`)).toBe("idle\n");
    const usage = JSON.parse(await o.read(`${agent}/usage`));
    expect([usage.turn.requests, usage.session.requests]).toEqual([3, 3]);
    expect(await o.read(`${agent}/chat`)).toContain(`mine, in ${o.work}`);

    // The tool loaded during the first turn answers the next one, on a new connection.
    o.mock.enqueue({ toolCalls: [{ name: "where_am_i", arguments: {} }] }, { text: "Still here." });
    await prompt(o, agent, "And now?");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    const chat = await o.read(`${agent}/chat`);
    expect(chat.match(new RegExp(`mine, in ${o.work}`, "g"))).toHaveLength(2);
    expect(chat).not.toMatch(/← where_am_i: (error|no tool)/);
    // One history across the park, nothing added to it.
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string; content: string }>;
    expect(history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(history.filter((m) => m.role === "tool").map((m) => m.content.trim())).toEqual([
      expect.stringContaining("where_am_i"),
      `mine, in ${o.work}`,
      `mine, in ${o.work}`,
    ]);
    expect(JSON.parse(await o.read(`${agent}/usage`)).session.requests).toBe(5);
    await vi.waitFor(async () => expect(await stat("toolsrv-connections")).toBe(0), PARKED);
  });

  it("stays while a process it started in the background runs, and is parked once that ends", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "exec sleep 1000", background: true } }] },
      { text: "Started." },
    );
    await prompt(o, agent, "Start it in the background");
    const listing = await vi.waitFor(async () => {
      const idx = await o.read(`${agent}/proc/idx`);
      expect(idx).toMatch(/^\d+\tshell\trunning\t/m);
      return idx;
    }, WAIT);
    // Idle for twice the while, and still connected: proc/ shows the process, and ctl can kill it.
    await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_CLOSE_S * 1000));
    expect(await stat("toolsrv-connections")).toBe(1);
    const procId = listing.split("\t")[0]!;
    await o.fsys.writeFile(`${agent}/ctl`, `proc kill ${procId}\n`);
    await vi.waitFor(async () => expect(await stat("toolsrv-connections")).toBe(0), PARKED);
  });
});
