import { randomUUID } from "node:crypto";
import { processesMarked } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT, watchStates } from "./harness.js";

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
  await vi.waitFor(
    () => expect(processesMarked(marker).length, "marked processes running").toBeGreaterThanOrEqual(4),
    WAIT,
  );
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
    await vi.waitFor(() => expect(processesMarked(marker)).toEqual([]), WAIT);
  });

  it("end when the session is killed", async () => {
    const marker = `OLLIE_TEST_MARK=${randomUUID()}`;
    const id = await o.create(`agent=coding cwd=${o.work}`);
    await detachingTurn(id, marker);
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    await vi.waitFor(() => expect(processesMarked(marker)).toEqual([]), WAIT);
  });
});
