import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie, watchStates } from "./harness.js";

/**
 * A tool that detaches processes (setsid, a double fork, a daemon's double fork into a new session) leaves
 * none of them behind when its turn is stopped or its session killed. The tool marks its environment; no
 * process on the machine may carry the mark afterwards.
 */

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-trees-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const marked = (marker: string) =>
  readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
    } catch {
      return false;
    }
  });

async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 1500 && !test(); i++) await new Promise((r) => setTimeout(r, 20));
}

/** Starts a turn whose shell tool detaches three processes; resolves once they and its `sleep` run. */
async function detachingTurn(id: string, marker: string): Promise<string> {
  const agent = `session/${id}/agent/main`;
  const command = [
    `export ${marker}`,
    "setsid sleep 1000 &",
    "( (sleep 1000 &) & )",
    `/usr/bin/python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); time.sleep(1000)'`,
    "sleep 1000",
  ].join("\n");
  o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command } }] });
  await o.fsys.writeFile(`${agent}/prompt`, "Start the servers");
  // The shell's own environment was set before its `export`: what it starts carries the mark, it does not.
  // One snapshot decides: the daemon's double fork passes through short-lived processes that a second count
  // may no longer see.
  let running = 0;
  await until(() => {
    running = marked(marker).length;
    return running >= 4;
  });
  expect(running, "marked processes running").toBeGreaterThanOrEqual(4);
  return agent;
}

describe("a tool's detached processes", () => {
  it("end when the turn is stopped", async () => {
    const marker = `OLLIE_TEST_MARK=${randomUUID()}`;
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = await detachingTurn(id, marker);
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/ctl`, "stop\n");
    await states.until("idle");
    await until(() => marked(marker).length === 0);
    expect(marked(marker)).toEqual([]);
  });

  it("end when the session is killed", async () => {
    const marker = `OLLIE_TEST_MARK=${randomUUID()}`;
    const id = await o.create(`agent=coding cwd=${o.work}`);
    await detachingTurn(id, marker);
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    await until(() => marked(marker).length === 0);
    expect(marked(marker)).toEqual([]);
  });
});
