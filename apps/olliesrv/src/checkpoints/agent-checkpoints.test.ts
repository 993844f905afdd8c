import { rmSync, statSync, writeFileSync } from "node:fs";
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
    // Each turn that writes has a checkpoint of its own, an unchanged directory's reusing the commit.
    agent.turnStarted(turnStart(3, history));
    const third = await agent.beforeWrite();
    agent.turnStarted(turnStart(4, history));
    const fourth = await agent.beforeWrite();
    expect(third).toMatchObject({ created: true, checkpoint: { n: 2, turn: 3 } });
    expect(fourth).toMatchObject({ created: true, checkpoint: { n: 3, turn: 4, files: [] } });
    if (third?.created && fourth?.created) expect(fourth.checkpoint.commit).toBe(third.checkpoint.commit);
  });

  it("gives what a rewind writes to the daemon's user alone: git keeps no permission bit but x", async () => {
    const dir = scratch.dir();
    writeFileSync(join(dir, "secret.env"), "KEY=1\n", { mode: 0o600 });
    writeFileSync(join(dir, "run.sh"), "echo\n", { mode: 0o755 });
    const agent = new CheckpointRepos(scratch.dir("ckpt-data-")).forAgent(
      { id: "s3", cwd: dir, remote: undefined },
      "main",
    );
    agent.turnStarted(turnStart(1, [{ role: "user", content: "Delete" }]));
    await agent.beforeWrite();
    rmSync(join(dir, "secret.env"));
    rmSync(join(dir, "run.sh"));
    await agent.rewind(1);
    expect(statSync(join(dir, "secret.env")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o700);
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
