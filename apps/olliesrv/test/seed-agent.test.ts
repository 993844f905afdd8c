import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie, watchStates } from "./harness.js";

/** The agent layer's seed behaviours as olliesrv serves them: the compaction model, and inject vs rewrite. */
let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-seed-agent-", {
    setup: (config) => {
      const conf = join(config, "backends.conf");
      const text = readFileSync(conf, "utf8");
      writeFileSync(
        conf,
        text.replace("model = mock-model\n", "model = mock-model\ncompaction_model = other-model\n"),
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const summary = JSON.stringify({ objective: "answer the questions", constraints: [], decisions: [] });

describe("the agent layer, served", () => {
  it("sends compaction summaries to the backend profile's compaction_model and counts them apart", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    for (const n of [1, 2, 3, 4, 5, 6]) {
      o.mock.enqueue({ text: `Answer ${n}.` });
      await prompt(o, agent, `Question ${n}`);
    }
    expect(o.mock.lastRequest?.model).toBe("mock-model");
    o.mock.enqueue({ text: summary, usage: { input: 300, output: 40 } });
    await o.fsys.writeFile(`${agent}/ctl`, "compact\n");
    expect(o.mock.lastRequest?.model).toBe("other-model");
    const usage = JSON.parse(await o.read(`${agent}/usage`)) as {
      session: { requests: number };
      compaction: { requests: number; inputTokens: number };
    };
    expect(usage.compaction).toMatchObject({ requests: 1, inputTokens: 300 });
    expect(usage.session.requests).toBe(7);
    expect((await o.read(`${agent}/cost`)).split("\n")[2]).toMatch(
      /^\$\d+\.\d{4} compaction \(part of the session\)$/,
    );
  });

  it("rewrite replaces what inject queued before the running turn took it", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 1" } }] }, { text: "Noted." });
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Wait a moment");
    await states.until("calling: shell");
    await o.fsys.writeFile(`${agent}/ctl`, "inject use the first plan\n");
    await o.fsys.writeFile(`${agent}/ctl`, "rewrite use the second plan\n");
    const idle = await watchStates(o, agent);
    await idle.until("idle");
    const sent = JSON.stringify(o.mock.lastRequest?.body);
    expect(sent).toContain("use the second plan");
    expect(sent).not.toContain("use the first plan");
  });
});
