import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT, watchStates } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie();
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

describe("olliesrv over 9P", () => {
  it("creates a session, runs a turn with a sandboxed tool call, and shows it in chat and tail", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=first`);
    expect(id).toMatch(/^\d{19}-[0-9a-f]{6}$/);
    expect(await o.read("session/idx")).toContain(`${id}\tfirst\tidle\t${o.work}\n`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      {
        text: "Writing it.",
        toolCalls: [{ name: "file_write", arguments: { path: "hello.txt", content: "hi from the agent\n" } }],
        delayMs: 30,
      },
      { text: "Done: hello.txt says hi.", delayMs: 30 },
    );
    const tail = await o.fsys.open(`${agent}/tail`);
    const seen = await prompt(o, agent, "Write hello.txt\n");
    expect(seen[0]).toBe("thinking");
    expect(seen).toContain("calling: file_write");
    expect(seen.at(-1)).toBe("idle");
    expect(readFileSync(join(o.work, "hello.txt"), "utf8")).toBe("hi from the agent\n");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toBe(
      [
        "» Write hello.txt",
        "",
        "Writing it.",
        '→ file_write {"path":"hello.txt","content":"hi from the agent\\n"}',
        `← file_write: created ${join(o.work, "hello.txt")} (18 bytes)`,
        "Done: hello.txt says hi.",
        "",
        "",
      ].join("\n"),
    );
    expect((await tail.read(0, 65536)).toString()).toBe(chat.slice(0, (await tail.read(0, 65536)).length));
    await tail.close();
    expect((await o.read(`${agent}/prompt.prev`)).trim()).toBe("Write hello.txt");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    expect(JSON.parse(await o.read(`${agent}/usage`)).session.requests).toBe(2);
  });

  it("stops a turn from ctl: the tool's process dies and the agent is idle with a coherent history", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo $$ > slow.pid; sleep 100" } }] },
      { text: "Stopped, then." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Run the slow thing");
    const pidFile = join(o.work, "slow.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await o.fsys.writeFile(`${agent}/ctl`, "stop\n");
    await states.until("idle");
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    expect(await o.read(`${agent}/outcome`)).toBe("interrupted\n");
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string }>;
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    await prompt(o, agent, "Carry on");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
  });

  it("says in chat when a reply ends short, and when a retry replaces a broken partial reply", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ text: "The first half", stopReason: "length" });
    await prompt(o, agent, "Write a long essay");
    o.mock.enqueue({ text: "" });
    await prompt(o, agent, "Anything?");
    o.mock.enqueue(
      { fault: { type: "stream_error", afterText: "I think" }, delayMs: 20 },
      { text: "Actually, no." },
    );
    await prompt(o, agent, "Do you agree?");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toContain("The first half\n! the reply hit the output limit and was cut off;");
    expect(chat).toContain("» Anything?\n\n! the model returned an empty reply;");
    expect(chat).toMatch(
      /I think\n~ retrying in [\d.]+ s, attempt 2 of \d+: .*\n~ the retry's reply differs from the partial one above, which it replaces:\nActually, no\./,
    );
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
  });

  it("streams replies to programs through fifo.in and fifo.out, and lists and kills tool processes", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const out = await o.fsys.open(`${agent}/fifo.out`);
    o.mock.enqueue({ text: "Hello, program.", chunkSize: 5 });
    await o.fsys.writeFile(`${agent}/fifo.in`, "hi\n");
    let got = "";
    for (let offset = 0; !got.endsWith("\n"); ) {
      const chunk = await out.read(offset);
      got += chunk.toString();
      offset += chunk.length;
    }
    expect(got).toBe("Hello, program.\n");
    await out.close();

    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "sleep 100" } }] },
      { text: "It was killed." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "sleep");
    const listing = await vi.waitFor(async () => {
      const idx = await o.read(`${agent}/proc/idx`);
      expect(idx).toContain("shell\trunning");
      return idx;
    }, WAIT);
    const procId = listing.split("\t")[0]!;
    expect(listing).toMatch(/^\d+\tshell\trunning\t/);
    await expect(o.fsys.writeFile(`${agent}/ctl`, "proc kill 99999\n")).rejects.toThrow(
      "no process 99999 of this agent",
    );
    await o.fsys.writeFile(`${agent}/ctl`, `proc kill ${procId}\n`);
    await states.until("idle");
    expect(await o.read(`${agent}/chat`)).toContain("← shell failed:");
    expect(await o.read(`${agent}/proc/idx`)).toContain(`${procId}\tshell\tcancelled`);
  });

  it("lists skills and loads one into the system prompt", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    expect(await o.read(`${agent}/skills`)).toMatch(
      /^ {2}git\tInspect, commit and review changes with git\.\n {2}testing\t/,
    );
    await o.fsys.writeFile(`${agent}/ctl`, "skill load git\n");
    expect(await o.read(`${agent}/skills`)).toMatch(/^\* git\t/);
    expect(await o.read(`${agent}/systemprompt`)).toContain("## Skill: git\n\nUse `git status`");
    await expect(o.fsys.writeFile(`${agent}/ctl`, "skill load juggling\n")).rejects.toThrow(
      "no skill 'juggling'",
    );
    expect(await o.read(`${agent}/cfg`)).toContain("skills=git\n");
  });

  it("refuses a bad ctl command with an error saying why", async () => {
    const id = await o.create(`cwd=${o.work}`);
    await expect(o.fsys.writeFile(`session/${id}/agent/main/ctl`, "fly away\n")).rejects.toThrow(
      /unknown command 'fly'/,
    );
    await expect(o.fsys.writeFile(`session/${id}/agent/main/ctl`, "stop\n")).rejects.toThrow(
      "nothing is running",
    );
    await expect(o.create("color=blue")).rejects.toThrow("session spec:1:1: color: unknown key");
    await expect(o.create(`cwd=${o.work} callback=maybe`)).rejects.toThrow(
      `session spec:1:${6 + o.work.length}: callback: yes or no, not 'maybe'`,
    );
  });

  it("switches model and profile, keeps a plan, and compacts on command", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await o.fsys.writeFile(`session/${id}/plan`, "- [x] look around\n- [ ] write the fix\n");
    expect(await o.read(`session/${id}/plan`)).toBe("- [x] look around\n- [ ] write the fix\n");
    await o.fsys.writeFile(`${agent}/ctl`, "model big-model\n");
    o.mock.enqueue({ text: "Using the big model." });
    await prompt(o, agent, "Which model?");
    expect(o.mock.lastRequest?.model).toBe("big-model");
    expect(await o.read(`${agent}/cfg`)).toContain("model=big-model\n");

    for (const n of [1, 2, 3, 4]) {
      o.mock.enqueue({ text: `Answer ${n}.` });
      await prompt(o, agent, `Question ${n}`);
    }
    o.mock.enqueue({
      text: JSON.stringify({
        objective: "check the model",
        constraints: [],
        decisions: ["asked which model"],
      }),
    });
    await o.fsys.writeFile(`${agent}/ctl`, "compact\n");
    expect(await o.read(`${agent}/chat`)).toMatch(/~ compacted: \d+ → \d+ tokens/);
    const compacted = JSON.parse(await o.read(`${agent}/context`)) as Array<{ content: string }>;
    expect(compacted[0]!.content).toContain("Objective: check the model");
    await o.fsys.writeFile(`${agent}/ctl`, "agent coding\n");
    expect(await o.read(`${agent}/cfg`)).toContain("profile=coding\n");
    o.mock.enqueue({ text: "Fresh start." });
    await prompt(o, agent, "Hello again");
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ content: string }>;
    expect(history.map((m) => m.content)).toEqual(["Hello again", "Fresh start."]);
    expect(await o.read(`${agent}/tools`)).toContain("file_edit\t");
  });
});
