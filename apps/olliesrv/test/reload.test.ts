import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, untilTurns, WAIT, watchStates } from "./harness.js";

let o: Ollie;
let conf: string;
let original: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-reload-");
  conf = join(o.root, "config", "ollie", "backends.conf");
  original = readFileSync(conf, "utf8");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const reloadError = () =>
  o.fsys.writeFile("ctl", "reload\n").then(
    () => "",
    (e: Error) => e.message,
  );

describe("olliesrv reads backends.conf again", () => {
  it("keeps the backends it has when the file is broken, naming the file and line", async () => {
    const before = await o.read("backends");
    writeFileSync(conf, `${original}[broken]\ntype = openai\nmodel = x\n`);
    const said = await o.logged(`${conf}:14: [broken] of type openai needs a 'url'`);
    expect(said).toContain(
      `WARN  olliesrv: ${conf}:14: [broken] of type openai needs a 'url' (e.g. https://api.openai.com/v1); the backends stay as they were until it is fixed`,
    );
    expect(await reloadError()).toBe(
      `ctl: reload: ${conf}:14: [broken] of type openai needs a 'url' (e.g. https://api.openai.com/v1) (olliesrv keeps the backends it had)`,
    );
    expect(await o.read("backends")).toBe(before);
    // Work goes on with the profiles as they were.
    const id = await o.create(`cwd=${o.work}`);
    o.mock.enqueue({ text: "Still here." });
    await prompt(o, `session/${id}/agent/main`, "hello");
    expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("done");

    writeFileSync(
      conf,
      `${original}[extra]\ntype = openai\nurl = ${o.mock.baseUrl("openai")}\nmodel = big-model\n`,
    );
    await vi.waitFor(
      async () => expect(await o.read("backends")).toBe(`${before}  extra\topenai\tbig-model\n`),
      WAIT,
    );
    expect(await reloadError()).toBe("");
    // The daemon's ctl is the owner's alone.
    const ctl = await o.fsys.stat("ctl");
    expect([ctl.mode & 0o777, ctl.uid]).toEqual([0o644, o.owner]);
    writeFileSync(conf, original);
    await vi.waitFor(async () => expect(await o.read("backends")).toBe(before), WAIT);
  });

  it("lets a running turn finish with the backend it started with; the agent's next turn takes the new one", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const chats = () => o.mock.requests.filter((r) => r.method === "POST").length;
    const start = chats();
    o.mock.enqueue(
      {
        text: "Let me think first.",
        chunkSize: 2,
        delayMs: 40,
        toolCalls: [{ name: "reasoning_think", arguments: { thought: "which backend am I on?" } }],
      },
      { text: "Done, on the backend I started with." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "think, then answer");
    await states.until("thinking");
    // While the first reply streams, [mock] moves to an address where nothing answers.
    writeFileSync(
      conf,
      original.replace(
        /url = http:\/\/127\.0\.0\.1:\d+\/v1\nmodel = mock-model/,
        "url = http://127.0.0.1:1/v1\nmodel = mock-model",
      ),
    );
    expect(await reloadError()).toBe("");
    await untilTurns(o, agent, 1);
    expect((await o.read(`${agent}/outcome`)).trim()).toBe("done");
    expect(chats() - start).toBe(2);

    const states2 = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "and now?");
    await states2.until("idle");
    await untilTurns(o, agent, 2);
    expect((await o.read(`${agent}/outcome`)).trim()).toMatch(
      /^error: mock: request to http:\/\/127\.0\.0\.1:1\/v1\/chat\/completions failed: connect ECONNREFUSED/,
    );
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toContain("Done, on the backend I started with.");
    expect(chat).toContain("· backends.conf changed: this agent now uses 'mock' (openai, mock-model)");
    expect(chat.indexOf("backends.conf changed")).toBeGreaterThan(chat.indexOf("Done, on the backend"));
    expect(chat).toContain(`! the backend 'mock' did not answer. Start it, or change [mock] in ${conf}`);
    writeFileSync(conf, original);
    expect(await reloadError()).toBe("");
  });
});
