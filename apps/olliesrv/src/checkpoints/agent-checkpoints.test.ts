import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Scratch } from "./__fixtures__/trees.js";
import { turnStart } from "./agent-checkpoints.js";
import { CheckpointRepos } from "./checkpoint-repos.js";

const scratch = new Scratch();
afterAll(() => scratch.removeAll());

describe("an agent's checkpoints", () => {
  it("records once per turn, before its first write, and not outside a turn", async () => {
    const dir = scratch.dir();
    writeFileSync(join(dir, "a.txt"), "one\n");
    const repos = new CheckpointRepos(scratch.dir("ckpt-data-"));
    const agent = repos.forAgent({ id: "s1", cwd: dir, remote: undefined }, "main");
    expect(repos.forAgent({ id: "s1", cwd: dir, remote: undefined }, "main")).toBe(agent);
    expect(await agent.beforeWrite()).toBeUndefined();

    const history = [{ role: "user" as const, content: "Write" }];
    agent.turnStarted(turnStart(1, history));
    const first = await agent.beforeWrite();
    expect(first).toMatchObject({ created: true, checkpoint: { n: 1, turn: 1, history: { messages: 0 } } });
    // The turn's second write, after the first changed the directory: no second checkpoint.
    writeFileSync(join(dir, "a.txt"), "two\n");
    expect(await agent.beforeWrite()).toBeUndefined();
    agent.turnEnded();
    agent.turnStarted(turnStart(2, history));
    agent.turnEnded();
    expect(await agent.beforeWrite()).toBeUndefined();
    expect((await agent.list()).map((c) => c.n)).toEqual([1]);
  });

  it("keeps none for a session whose tools run on another host, and says why", async () => {
    const repos = new CheckpointRepos(scratch.dir("ckpt-data-"));
    const agent = repos.forAgent({ id: "s2", cwd: "/srv/app", remote: { destination: "me@box" } }, "main");
    agent.turnStarted(turnStart(1, [{ role: "user", content: "Write" }]));
    expect(await agent.beforeWrite()).toBeUndefined();
    expect(agent.unavailable).toBe(
      "its tools run on me@box, and checkpoints are kept for a directory on this machine only",
    );
    await expect(agent.list()).rejects.toThrow("no checkpoints: its tools run on me@box");
  });
});
