import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resourceGroups } from "@ollie/sandbox";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT, watchStates } from "./harness.js";

/**
 * A fork bomb in one agent's tool, through the whole daemon: the agent's process limit (sandbox.yaml) stops
 * it and the model reads why, while olliesrv keeps answering and another agent's tools keep running.
 */
const LIMIT = 40;
const groups = await resourceGroups();
const inCgroups = groups.placeOf("pids") !== undefined;

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-limits-", {
    setup: (config) => writeFileSync(join(config, "sandbox.yaml"), `limits:\n  processes: ${LIMIT}\n`),
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

/** What the agent's last tool call returned, as the model read it. */
async function lastResult(agent: string): Promise<string | undefined> {
  const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string; content: string }>;
  return history.findLast((m) => m.role === "tool")?.content;
}

describe.runIf(inCgroups)("a fork bomb in an agent's shell", () => {
  it("stops at the agent's process limit, the model told so, while the daemon and other agents go on", async () => {
    const bomberDir = join(o.work, "bomber");
    const workerDir = join(o.work, "worker");
    mkdirSync(bomberDir);
    mkdirSync(workerDir);
    await execa("mkfifo", [join(bomberDir, "go")]);
    const bomber = `session/${await o.create(`agent=coding cwd=${bomberDir}`)}/agent/main`;
    const worker = `session/${await o.create(`agent=coding cwd=${workerDir}`)}/agent/main`;
    const bomb =
      "for i in $(seq 20); do sleep 300 & done; : > full; read word < go; b() { b | b & }; b; wait";
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: bomb } }] });
    const bomberStates = await watchStates(o, bomber);
    await o.fsys.writeFile(`${bomber}/prompt`, "Fill the table.");
    await vi.waitFor(() => expect(existsSync(join(bomberDir, "full"))).toBe(true), WAIT);
    // Half the bomber's limit is taken: the daemon answers, and another agent's shell runs.
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo worked in $PWD" } }] },
      { text: "Worked." },
    );
    await prompt(o, worker, "Work.");
    expect(await lastResult(worker)).toContain(`worked in ${workerDir}`);
    expect(await o.read("session/idx")).toContain(bomberDir);
    o.mock.enqueue({ text: "The table is full." });
    writeFileSync(join(bomberDir, "go"), "go\n");
    await bomberStates.until("idle");
    expect(await lastResult(bomber)).toContain(`[shell was stopped: it reached the ${LIMIT}-process limit]`);
    // And the agent's tools work again.
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo again" } }] },
      { text: "Again." },
    );
    await prompt(o, bomber, "Once more.");
    expect(await lastResult(bomber)).toMatch(/^again\n?$/);
  });
});
