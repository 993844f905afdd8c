import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, untilTurns, WAIT } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

// What the namespace shows stays true after changes: skills added, changed or removed while olliesrv runs,
// a session on the default backend, a restart, a turn that failed.
let o: Ollie;
let skills: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-state-", {
    setup: (configDir) => {
      skills = join(configDir, "skills");
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o);

const skill = (name: string, text: string) =>
  `---\nname: ${name}\ndescription: How we ${name}.\n---\n${text}\n`;

/** The main agent's turns as its session file has them. */
const savedTurns = (id: string) =>
  JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8")).agents[0].turns;

const cfgOf = async (agent: string) =>
  Object.fromEntries(
    (await o.read(`${agent}/cfg`))
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );

describe("skills added, changed and removed while olliesrv runs", () => {
  it("are listed, loadable, rendered anew when changed and unloaded when removed", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    // `reload` on the root ctl reads them at once.
    mkdirSync(skills, { recursive: true });
    writeFileSync(join(skills, "deploy.md"), skill("deploy", "Run make deploy, then check /health."));
    await o.fsys.writeFile("ctl", "reload\n");
    expect(await o.read(`${agent}/skills`)).toMatch(/^ {2}deploy\tHow we deploy\.$/m);

    // The model loads it with its own tool.
    o.mock.enqueue(
      { toolCalls: [{ name: "skill_load", arguments: { name: "deploy" } }] },
      { text: "Loaded." },
    );
    await prompt(o, agent, "Load the deploy skill.");
    expect((await cfgOf(agent)).skills).toBe("deploy");
    expect(await o.read(`${agent}/skills`)).toMatch(/^\* deploy\t/m);
    expect(await o.read(`${agent}/systemprompt`)).toContain(
      "## Skill: deploy\n\nRun make deploy, then check /health.",
    );

    // Seen without being asked: a changed skill is rendered again (the agent is idle, so at once).
    writeFileSync(join(skills, "deploy.md"), skill("deploy", "Run make release instead."));
    await vi.waitFor(
      async () => expect(await o.read(`${agent}/systemprompt`)).toContain("Run make release instead."),
      WAIT,
    );
    expect(await o.read(`${agent}/systemprompt`)).not.toContain("make deploy");
    expect(await o.read(`${agent}/chat`)).toContain(
      "· skill deploy changed: the system prompt has the new text from the next turn",
    );
    // The next request carries it.
    o.mock.enqueue({ text: "Releasing." });
    await prompt(o, agent, "Go.");
    expect(JSON.stringify(o.mock.requests.at(-1)?.body)).toContain("Run make release instead.");

    // Removed: unloaded, with a note in the chat; a new one is listed.
    rmSync(join(skills, "deploy.md"));
    writeFileSync(join(skills, "review.md"), skill("review", "Read every file."));
    await vi.waitFor(async () => expect((await cfgOf(agent)).skills).toBe(""), WAIT);
    await vi.waitFor(async () => expect(await o.read(`${agent}/skills`)).toMatch(/^ {2}review\t/m), WAIT);
    expect(await o.read(`${agent}/skills`)).not.toContain("deploy");
    // The prompt is rendered anew once the agent is idle: the turn above may still be ending when the
    // change is seen, and then cfg says it first.
    await vi.waitFor(
      async () => expect(await o.read(`${agent}/systemprompt`)).not.toContain("## Skill: deploy"),
      WAIT,
    );
    expect(await o.read(`${agent}/chat`)).toContain(
      "· skill deploy is no longer in the skills directory: unloaded from the system prompt",
    );
  });
});

describe("cfg", () => {
  it("shows the backend and model a session uses when it chose neither", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    // Paused (never prompted): what it will use.
    expect(await cfgOf(agent)).toMatchObject({ backend: "mock", model: "mock-model" });
    o.mock.enqueue({ text: "Hi." });
    await prompt(o, agent, "Hi?");
    expect(await cfgOf(agent)).toMatchObject({ backend: "mock", model: "mock-model" });
    await o.fsys.writeFile(`${agent}/ctl`, "backend other\n");
    expect(await cfgOf(agent)).toMatchObject({ backend: "other", model: "other-model" });
    const chosen = await o.create(`backend=other model=big-model cwd=${o.work}`);
    expect(await cfgOf(`session/${chosen}/agent/main`)).toMatchObject({
      backend: "other",
      model: "big-model",
    });
  });
});

describe("after a restart", () => {
  it("turns and the last outcome carry on, as prompt numbers do, even after a kill -9", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ text: "One." }, { text: "Two." });
    await prompt(o, agent, "One?");
    await prompt(o, agent, "Two?");
    expect(await o.read(`${agent}/turns`)).toBe("2\n");
    // Saved as each turn ends, beside the agent's history.
    await vi.waitFor(() => expect(savedTurns(id)).toEqual({ count: 2, last: "done" }), WAIT);
    await o.crash();
    await o.restart();
    expect(await o.read(`${agent}/turns`)).toBe("2\n");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    o.mock.enqueue({ text: "Three." });
    await o.fsys.writeFile(`${agent}/prompt`, "Three?");
    await untilTurns(o, agent, 3);
    expect(await o.read(`${agent}/prompts/3`)).toBe("done\nThree.\n");
  });
});

describe("a turn that failed", () => {
  it("shows as failed, with its reason, in ollie top and ollie status — and again after a restart", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ fault: { type: "auth" } });
    await prompt(o, agent, "Hello?");
    const outcome = await o.read(`${agent}/outcome`);
    expect(outcome).toMatch(/^error: /);
    const reason = outcome.slice("error: ".length).trim().slice(0, 20);
    const shown = async () => {
      const status = (await ollie("status", id)).stdout;
      expect(status).toMatch(new RegExp(`^${id}\\tfailed: [^\\t]+\\tdefault\\tmock-model\\t`));
      expect(status).toContain(reason);
      const top = (await ollie("top")).stdout.split("\n");
      expect(top[0]).toMatch(/ \d+ busy, \d+ failed, /);
      const row = top.find((line) => line.startsWith(id));
      expect(row).toMatch(/ main +failed +/);
      expect(row).toContain(reason);
    };
    await shown();
    await o.stop();
    await o.restart();
    await shown();
    // A turn that works is no failure any more.
    o.mock.enqueue({ text: "Hello." });
    await prompt(o, agent, "Hello again?");
    expect((await ollie("status", id)).stdout).toMatch(new RegExp(`^${id}\\tidle\\t`));
  });
});
