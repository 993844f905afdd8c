import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { connect, type OllieClient, RefusedError } from "@ollie/client";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

let o: Ollie;
let client: OllieClient;
beforeAll(async () => {
  o = await startOllie("olliesrv-client-procs-");
  client = await connect({ env: o.env });
});
afterAll(async () => {
  client.close();
  await o.stop();
  await o.remove();
});

describe("@ollie/client's session list and tool processes against olliesrv", () => {
  it("follows the session list: each change answers the whole list as sessions() has it", async () => {
    const changes = await client.watchSessions();
    try {
      const before = await client.sessions();
      const made = changes.next();
      const session = await client.newSession({ agent: "coding", cwd: o.work, name: "listed" });
      const afterMade = await made;
      expect(afterMade).toEqual(await client.sessions());
      expect(afterMade).toEqual([...before, { id: session.id, name: "listed", state: "idle", cwd: o.work }]);

      const renamed = changes.next();
      await session.ctl("rename relisted");
      expect((await renamed).find((s) => s.id === session.id)?.name).toBe("relisted");

      const killed = changes.next();
      await session.kill();
      expect(await killed).toEqual(before);
    } finally {
      await changes.close();
    }
  });

  it("lists an agent's running tool process, gives what it printed so far, and kills it", async () => {
    const dir = join(o.work, "procs");
    mkdirSync(dir);
    await execa("mkfifo", [join(dir, "ready"), join(dir, "gate")]);
    const session = await client.newSession({ agent: "coding", cwd: dir });
    const agent = session.agent();
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo started; echo > ready; read w < gate" } }] },
      { text: "It was killed." },
    );
    const prompt = await agent.prompt("Run the gated command");
    // The command has printed `started` once it opens `ready`; then it waits at the gate, which nobody opens.
    await readFile(join(dir, "ready"));
    const running = (await agent.processes()).filter((p) => p.status === "running");
    expect(running).toEqual([
      { id: expect.any(Number), tool: "shell", status: "running", started: expect.any(Date) },
    ]);
    const [proc] = running;
    expect(Date.now() - proc!.started.getTime()).toBeLessThan(60_000);
    expect(await agent.processOutput(proc!.id)).toBe("started\n");

    await agent.killProcess(proc!.id);
    expect((await prompt.ended).outcome.status).toBe("done");
    const ended = (await agent.processes()).find((p) => p.id === proc!.id);
    // A process killed through its ctl is `cancelled`, as toolsrv says.
    expect(ended?.status).toBe("cancelled");
    // An ended process's output ends: all of it, at once.
    expect(await agent.processOutput(proc!.id)).toBe("started\n");
    await expect(agent.processOutput(proc!.id + 1000)).rejects.toThrow(RefusedError);
    await expect(agent.processOutput(0)).rejects.toThrow(TypeError);
    await session.kill();
  });
});
