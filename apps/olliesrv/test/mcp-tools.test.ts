import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";
import { EVERYTHING, EVERYTHING_STORE } from "./server-everything.js";

// server-everything from npm, behind a tee that writes every message each way into one log, in order.
const STORE = EVERYTHING_STORE;
const place = mkdtempSync(join(tmpdir(), "olliesrv-mcp-"));
const wire = join(place, "wire.log");
const LONG = "mcp__everything__trigger-long-running-operation";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-mcp-", {
    setup: (config) => {
      const server = {
        command: "/bin/sh",
        args: ["-c", `tee -a "$WIRE" | "$NODE" "$SERVER" stdio | tee -a "$WIRE"`],
        env: { WIRE: wire, NODE: process.execPath, SERVER: EVERYTHING },
        cwd: place,
        sandbox: { filesystem: { rox: [STORE] } },
      };
      writeFileSync(join(config, "mcp.json"), JSON.stringify({ mcpServers: { everything: server } }));
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
  rmSync(place, { recursive: true, force: true });
});

interface Message {
  id?: number;
  method?: string;
  params?: { name?: string };
  result?: unknown;
}

describe("an agent with an MCP server's tools", () => {
  it("loads them, calls them through toolsrv, runs read-only ones side by side, and reads their results", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "tool_load", arguments: { names: [LONG, "mcp__everything__get-sum"] } }] },
      {
        toolCalls: [
          { name: LONG, arguments: { duration: 2, steps: 2 } },
          { name: LONG, arguments: { duration: 2, steps: 2 } },
          { name: "mcp__everything__get-sum", arguments: { a: 19, b: 23 } },
        ],
      },
      { text: "All three answered." },
    );
    await prompt(o, agent, "Use the MCP tools");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toMatch(/← mcp__everything__get-sum: .*42/);
    expect(chat.match(new RegExp(`← ${LONG}: Long running operation completed`, "g"))).toHaveLength(2);
    // The model's next request carries the results.
    const last = JSON.stringify(o.mock.lastRequest?.body);
    expect(last).toContain("42");
    // Both long calls were on the wire before either answered: they ran side by side.
    const messages = readFileSync(wire, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Message);
    const calls = messages.flatMap((m, i) =>
      m.method === "tools/call" && m.params?.name === "trigger-long-running-operation"
        ? [{ id: m.id, i }]
        : [],
    );
    expect(calls).toHaveLength(2);
    const answered = calls.map(({ id }) => messages.findIndex((m) => m.id === id && m.result !== undefined));
    expect(Math.max(...calls.map((c) => c.i))).toBeLessThan(Math.min(...answered));
  });
});
