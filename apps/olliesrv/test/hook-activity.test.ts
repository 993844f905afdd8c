import { mkdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ORDWR } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT } from "./harness.js";

// A preTurn hook that outlasts --idle-close: the agent is busy all along (`state` and `activity` say the
// hook runs), so it is not parked and its turn ends as it should. The hook waits on a fifo the test writes
// once another agent, idle since after the hook began, has been parked: the hook has then outlasted
// --idle-close, whatever the machine's load.
const IDLE_CLOSE_S = 2;
const PARKED = { timeout: IDLE_CLOSE_S * 1000 + WAIT.timeout, interval: 100 };

let o: Ollie;
let fifo: string;
let skills: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-hook-activity-", {
    args: ["--idle-close", String(IDLE_CLOSE_S)],
    setup: (configDir) => {
      fifo = join(configDir, "..", "..", "release-hook");
      skills = join(configDir, "skills");
      mkdirSync(join(configDir, "agents"), { recursive: true });
      writeFileSync(
        join(configDir, "agents", "waits.json"),
        JSON.stringify({ prompt: "You wait.", hooks: { preTurn: `read -r line < ${fifo}` } }),
      );
    },
  });
  await execa("mkfifo", [fifo]);
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const stat = async (name: string) =>
  Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await o.read("stats"))?.[1] ?? Number.NaN);

/** Reads `statewait` until the agent's state is `want`. */
async function untilState(agent: string, want: string): Promise<void> {
  const f = await o.fsys.open(`${agent}/statewait`);
  try {
    let now = (await o.read(`${agent}/state`)).trim();
    while (now !== want) now = (await f.read(0)).toString().trim();
  } finally {
    await f.close();
  }
}

const keyValues = (text: string) =>
  Object.fromEntries(
    text
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );

describe("a preTurn hook longer than --idle-close", () => {
  it("keeps its agent busy — state and activity say the hook runs — and the turn completes", async () => {
    const id = await o.create(`agent=waits cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const ticket = await o.fsys.open(`${agent}/prompt`, ORDWR);
    await ticket.write("Wait for it.");
    const number = (await ticket.read(0)).toString().trim();
    await ticket.close();
    await untilState(agent, "hook: preTurn");
    const during = keyValues(await o.read(`${agent}/activity`));
    expect(during).toMatchObject({ state: "hook", tool: "preTurn", arg: "" });
    expect(Date.parse(during.turn_started!)).not.toBeNaN();
    expect(await o.read(`${agent}/cfg`)).toContain("\nstate=hook: preTurn\n");

    // Another agent, prompted while the hook runs, is parked once idle for --idle-close.
    const other = await o.create(`cwd=${o.work}`);
    o.mock.enqueue({ text: "Quick." });
    await prompt(o, `session/${other}/agent/main`, "Quick?");
    await vi.waitFor(async () => expect(await stat("agents-live")).toBe(1), PARKED);

    // The hooked agent is still live and still in its hook.
    expect(await o.read(`${agent}/state`)).toBe("hook: preTurn\n");
    expect(keyValues(await o.read(`${agent}/activity`))).toMatchObject({
      state: "hook",
      tool: "preTurn",
      since: during.since,
    });
    o.mock.enqueue({ text: "Done waiting." });
    await writeFile(fifo, "go\n");
    expect(await o.read(`${agent}/prompts/${number}`)).toBe("done\nDone waiting.\n");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toContain("» Wait for it.");
    expect(chat).not.toContain("interrupted");
    // Once nothing runs, it is parked like any idle agent.
    await vi.waitFor(async () => expect(await stat("agents-live")).toBe(0), PARKED);
    expect(await o.read(`${agent}/state`)).toBe("idle\n");
  });
});

describe("a loaded skill changed while a turn runs", () => {
  it("leaves the running turn its system prompt, and is in the next one's", async () => {
    mkdirSync(skills, { recursive: true });
    const style = (text: string) => `---\nname: style\ndescription: How we write.\n---\n${text}\n`;
    writeFileSync(join(skills, "style.md"), style("Write tersely."));
    await o.fsys.writeFile("ctl", "reload\n");
    const id = await o.create(`agent=waits cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await o.fsys.writeFile(`${agent}/ctl`, "skill load style\n");
    await o.fsys.writeFile(`${agent}/prompt`, "Write.");
    await untilState(agent, "hook: preTurn");

    writeFileSync(join(skills, "style.md"), style("Write at length."));
    await o.fsys.writeFile("ctl", "reload\n");
    expect(await o.read(`${agent}/chat`)).toContain("· skill style changed:");
    expect(await o.read(`${agent}/systemprompt`)).toContain("Write tersely.");

    o.mock.enqueue({ text: "Short." });
    await writeFile(fifo, "go\n");
    expect(await o.read(`${agent}/prompts/1`)).toBe("done\nShort.\n");
    const asked = JSON.stringify(o.mock.requests.at(-1)?.body);
    expect(asked).toContain("Write tersely.");
    expect(asked).not.toContain("Write at length.");
    // Taken once the turn has ended.
    await vi.waitFor(
      async () => expect(await o.read(`${agent}/systemprompt`)).toContain("Write at length."),
      WAIT,
    );
  });
});
