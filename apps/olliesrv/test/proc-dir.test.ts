import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT, watchStates } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-proc-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const names = async (path: string) => (await o.fsys.readdir(path)).map((e) => e.name);

describe("an agent's proc/ directory", () => {
  it("has a directory per tool process: its status, its output as it comes, and a ctl that kills it", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    expect(await names(`${agent}/proc`)).toEqual(["idx"]);
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo started; sleep 100; echo never" } }] },
      { text: "It was killed." },
    );
    const states = await watchStates(o, agent);
    const events = await o.fsys.open(`session/${id}/events`);
    await o.fsys.writeFile(`${agent}/prompt`, "run it");
    // The directory follows the running turn by itself, without a read of idx.
    const listed = await vi.waitFor(async () => {
      const listing = (await names(`${agent}/proc`)).join(" ");
      expect(listing).toMatch(/\d/);
      return listing;
    }, WAIT);
    const procId = listed.split(" ").find((n) => n !== "idx")!;
    expect(listed.split(" ").sort()).toEqual(["idx", procId].sort());
    const proc = `${agent}/proc/${procId}`;
    expect(await names(proc)).toEqual(["status", "output", "ctl"]);
    expect(await o.read(`${proc}/status`)).toBe("running\n");
    expect(await o.read(`${agent}/proc/idx`)).toMatch(new RegExp(`^${procId}\\tshell\\trunning\\t\\S+Z\\n$`));
    // Watched, the processes say when they change: the start was an event, for a page to show it by.
    let seen = "";
    while (!/"topic":"agent\.main\.procs"[^\n]*"running":1/.test(seen))
      seen += (await events.read(0)).toString();
    await events.close();

    // The output streams: the first line is there while the process still runs.
    const output = await o.fsys.open(`${proc}/output`);
    expect((await output.read(0)).toString()).toBe("started\n");
    const rest = output.read(8);

    const ctl = await o.fsys.stat(`${proc}/ctl`);
    expect([ctl.mode & 0o777, ctl.uid, ctl.gid]).toEqual([0o664, `${id}.main`, id]);
    await expect(o.fsys.writeFile(`${proc}/ctl`, "pause\n")).rejects.toThrow("pause");
    await o.fsys.writeFile(`${proc}/ctl`, "kill\n");
    // The output ends with the process.
    expect((await rest).length).toBe(0);
    await output.close();
    await states.until("idle");
    await vi.waitFor(
      async () =>
        expect(await o.read(`${proc}/status`)).toMatch(/^(killed by SIG\w+|cancelled|exited \d+)\n$/),
      WAIT,
    );
    expect(await o.read(`${agent}/chat`)).toContain("← shell failed:");
    await expect(o.read(`${agent}/proc/99999/status`)).rejects.toThrow();
  });

  it("is empty for a paused agent, and refuses a process it does not have", async () => {
    const live = /agents-live (\d+)/.exec(await o.read("stats"))![1];
    const id = await o.create(`cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    expect(await names(`${agent}/proc`)).toEqual(["idx"]);
    expect(await o.read(`${agent}/proc/idx`)).toBe("");
    await expect(o.fsys.stat(`${agent}/proc/1`)).rejects.toThrow();
    // The old command stays.
    await expect(o.fsys.writeFile(`${agent}/ctl`, "proc kill 1\n")).rejects.toThrow(
      "the agent has no tool processes",
    );
    // Nothing here connected it.
    expect(await o.read("stats")).toContain(`agents-live ${live}\n`);
  });
});
