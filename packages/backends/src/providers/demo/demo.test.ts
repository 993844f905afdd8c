import { describe, expect, it } from "vitest";
import { collect } from "../../__fixtures__/conversation.js";
import { parseBackendsConf } from "../../config/backends-conf.js";
import { BackendPool } from "../../config/pool.js";
import type { Message, StreamEvent, Tool } from "../../types.js";
import { DEMO_MODEL, DemoBackend } from "./demo-backend.js";
import { fileNamed } from "./demo-script.js";

const tool = (name: string): Tool => ({ name, description: name, parameters: { type: "object" } });
const coding = ["file_read", "file_glob", "shell", "reasoning_think"].map(tool);
const system: Message = { role: "system", content: "You are a coding agent." };

/** The conversation after the demo's first reply and its call's result. */
async function afterCall(prompt: string, tools: Tool[], result: string, isError = false) {
  const demo = new DemoBackend();
  const first = await collect(demo.chatStream([system, { role: "user", content: prompt }], tools));
  const call = first.calls[0]!;
  const history: Message[] = [
    system,
    { role: "user", content: prompt },
    first.done.message,
    { role: "tool", toolCallId: call.id, name: call.name, content: result, ...(isError && { isError }) },
  ];
  return { first, second: await collect(demo.chatStream(history, tools)) };
}

describe("the demo backend", () => {
  it("streams text word by word, then calls file_glob on the directory when the prompt names no file", async () => {
    const demo = new DemoBackend();
    const events: StreamEvent[] = [];
    for await (const e of demo.chatStream([system, { role: "user", content: "what is here?" }], coding))
      events.push(e);
    const texts = events.filter((e) => e.type === "text");
    expect(texts.length).toBeGreaterThan(5);
    const reply = await collect(
      demo.chatStream([system, { role: "user", content: "what is here?" }], coding),
    );
    expect(reply.text).toMatch(/^This is Ollie's offline demo backend: no model and no network/);
    expect(reply.calls).toEqual([
      {
        id: expect.stringMatching(/^call_demo_[0-9a-f]{12}$/),
        name: "file_glob",
        arguments: { pattern: "*" },
      },
    ]);
    expect(reply.done.reason).toBe("tool_use");
    expect(reply.done.message.toolCalls).toHaveLength(1);
  });

  it("reads a file the prompt names, and answers from what the file says", async () => {
    const { first, second } = await afterCall(
      "Summarize `README.md`, please.",
      coding,
      "1\t# Ollie\n2\t\n3\tAn agent runtime.\n[12 more lines: read on with offset 4]",
    );
    expect(first.calls[0]).toMatchObject({ name: "file_read", arguments: { path: "README.md", limit: 40 } });
    expect(second.calls).toEqual([]);
    expect(second.done.reason).toBe("stop");
    expect(second.text).toContain('file_read gave 3 lines (and 12 more lines); the first says: "# Ollie".');
    expect(second.text).toContain("I am Ollie's offline demo backend");
    expect(second.text).toContain("`ollie init anthropic`");
  });

  it("says what file_glob found: the files themselves, and how many more", async () => {
    const files = Array.from({ length: 11 }, (_, i) => `f${i}.txt`);
    const { second } = await afterCall("list", coding, files.join("\n"));
    expect(second.text).toMatch(
      /^file_glob found 11 files here: f0\.txt, f1\.txt, f2\.txt, f3\.txt, f4\.txt, f5\.txt, f6\.txt, f7\.txt and 3 more\./,
    );
    const none = await afterCall("list", coding, "no files under /w match *");
    expect(none.second.text).toMatch(/^file_glob found no files here \(no files under \/w match \*\)\./);
  });

  it("says so when the call failed, with the tool's own words", async () => {
    const { second } = await afterCall(
      "read nope.txt",
      coding,
      "[file_read exited with status 1]\nnope.txt: no such file\nmore",
      true,
    );
    expect(second.text).toMatch(/^file_read failed: nope\.txt: no such file\./);
    const bare = await afterCall("read nope.txt", coding, "[file_read was cancelled]", true);
    expect(bare.second.text).toMatch(/^file_read failed: \[file_read was cancelled\]\./);
  });

  it("falls back to the shell, and to words alone when it was offered none of its tools", async () => {
    const { first, second } = await afterCall("hi", [tool("shell")], "a\nb\n");
    expect(first.calls[0]).toMatchObject({ name: "shell", arguments: { command: "ls -A" } });
    expect(second.text).toMatch(/^The shell printed 2 lines: a, b\./);
    const bare = await collect(
      new DemoBackend().chatStream([system, { role: "user", content: "hello there" }], [tool("client_9p")]),
    );
    expect(bare.calls).toEqual([]);
    expect(bare.text).toContain('the conversation holds 1 prompt(s), the last of them "hello there"');
    expect(bare.text).toContain("`ollie init anthropic`");
  });

  it("takes a prompt after a finished turn as a new turn, and a loop's nudge as no prompt", async () => {
    const { first, second } = await afterCall("what is here?", coding, "a.txt");
    const history: Message[] = [
      system,
      { role: "user", content: "what is here?" },
      first.done.message,
      { role: "tool", toolCallId: first.calls[0]!.id, name: "file_glob", content: "a.txt" },
      second.done.message,
    ];
    const again = await collect(
      new DemoBackend().chatStream([...history, { role: "user", content: "and now?" }], coding),
    );
    expect(again.calls[0]?.name).toBe("file_glob");
    const nudged = await collect(
      new DemoBackend().chatStream(
        [...history.slice(0, 4), { role: "user", content: "[ollie] 8 rounds without a plan" }],
        coding,
      ),
    );
    expect(nudged.calls).toEqual([]);
    expect(nudged.text).toMatch(/^file_glob found 1 file here: a\.txt\./);
  });

  it("reports estimated tokens at no cost, lists one model, and stops at an abort", async () => {
    const demo = new DemoBackend({ name: "try", model: "custom" });
    const reply = await collect(demo.chatStream([system, { role: "user", content: "x" }], coding));
    expect(reply.usage).toMatchObject({ costUsd: 0, inputEstimated: true, cachedInputTokens: 0 });
    expect(reply.usage!.inputTokens).toBeGreaterThan(10);
    expect(reply.usage!.outputTokens).toBeGreaterThan(5);
    expect(await demo.models()).toEqual([{ id: "custom", contextLength: 128_000, tools: true }]);
    expect(await demo.contextLength()).toBe(128_000);
    expect(demo).toMatchObject({ name: "try", provider: "demo", model: "custom" });
    const stop = new AbortController();
    const stream = demo.chatStream([system, { role: "user", content: "x" }], coding, {}, stop.signal);
    const seen: StreamEvent[] = [];
    await expect(
      (async () => {
        for await (const e of stream) {
          seen.push(e);
          stop.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toHaveLength(1);
  });

  it("is a backends.conf type of its own: no key, no url, ollie-demo unless a model is named", async () => {
    const conf = parseBackendsConf("[demo]\ntype = demo\n[other]\ntype = demo\nmodel = m2\n");
    expect(conf.profiles.get("demo")).toMatchObject({
      type: "demo",
      model: DEMO_MODEL,
      credential: { kind: "none" },
    });
    const pool = new BackendPool(conf, {});
    expect(await pool.get("demo")).toBeInstanceOf(DemoBackend);
    expect((await pool.get("other")).model).toBe("m2");
  });

  it("finds file names in a prompt, not sentences' ends or addresses", () => {
    expect(fileNamed("look at src/index.ts.")).toBe("src/index.ts");
    expect(fileNamed("what does (package.json) say?")).toBe("package.json");
    expect(fileNamed("see docs/")).toBeUndefined();
    expect(fileNamed("see ./docs/guide")).toBe("./docs/guide");
    expect(fileNamed("fetch https://example.com/a.html")).toBeUndefined();
    expect(fileNamed("what is here? It is 3.5 times bigger.")).toBeUndefined();
  });
});
