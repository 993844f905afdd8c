import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockReply } from "@ollie/backends/testing";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("result tiers", () => {
  it("collapse a cold result to one line once the model has read it, and keep hot ones", async () => {
    const recall = echoTool("memory_recall", { tier: "cold", run: () => "fact one\nfact two\nfact three" });
    const edit = echoTool("file_edit", { run: () => "edited main.ts" });
    const { agent, backend } = await scriptedAgent(
      [call("memory_recall"), call("file_edit"), { text: "ok" }],
      {
        tools: tools(recall, edit),
      },
    );
    await agent.submit("go");
    const resultIn = (request: number, name: string) =>
      backend.calls[request]!.messages.find((m) => m.role === "tool" && m.name === name)?.content;
    expect(resultIn(1, "memory_recall")).toBe("fact one\nfact two\nfact three");
    expect(resultIn(2, "memory_recall")).toBe(
      '[collapsed: memory_recall returned 28 bytes, beginning "fact one"]',
    );
    expect(resultIn(2, "file_edit")).toBe("edited main.ts");
    expect(agent.history.find((m) => m.role === "tool" && m.name === "memory_recall")?.content).toMatch(
      /^\[collapsed: /,
    );
  });
});

describe("the read cache", () => {
  const file = join(dir, "notes.txt");
  const reader = (count: { runs: number }) =>
    echoTool("file_read", {
      readSafe: true,
      cache: { pathArgument: "path" },
      run: (args) => {
        count.runs++;
        return readFileSync(join(dir, String(args.path)), "utf8");
      },
    });

  it("answers a repeated read from the cache while the file is unchanged", async () => {
    writeFileSync(file, "version 1");
    const count = { runs: 0 };
    const { agent, of } = await scriptedAgent(
      [call("file_read", { path: "notes.txt" }), call("file_read", { path: "notes.txt" }), { text: "ok" }],
      { tools: tools(reader(count)), cwd: dir },
    );
    await agent.submit("go");
    expect(count.runs).toBe(1);
    expect(of("tool").map((e) => [e.result.toolCallId, e.result.content])).toEqual([
      ["call_scripted_0", "version 1"],
      ["call_scripted_0", "version 1"],
    ]);
  });

  it("reads again when the file changed between two reads of one turn", async () => {
    writeFileSync(file, "version 1");
    const count = { runs: 0 };
    let request = 0;
    const script = (): MockReply => {
      request++;
      if (request === 2) writeFileSync(file, "version 2, longer");
      return request <= 2 ? call("file_read", { path: "notes.txt" }) : { text: "ok" };
    };
    const { agent, of } = await scriptedAgent(script, { tools: tools(reader(count)), cwd: dir });
    await agent.submit("go");
    expect(count.runs).toBe(2);
    expect(of("tool").map((e) => e.result.content)).toEqual(["version 1", "version 2, longer"]);
  });

  it("forgets everything after a call that may write, and starts empty each turn", async () => {
    writeFileSync(file, "version 1");
    const count = { runs: 0 };
    const { agent } = await scriptedAgent(
      [
        call("file_read", { path: "notes.txt" }),
        call("touch", {}),
        call("file_read", { path: "notes.txt" }),
        { text: "ok" },
        call("file_read", { path: "notes.txt" }),
        { text: "ok" },
      ],
      { tools: tools(reader(count), echoTool("touch")), cwd: dir },
    );
    await agent.submit("go");
    expect(count.runs).toBe(2);
    await agent.submit("again");
    expect(count.runs).toBe(3);
  });
});
