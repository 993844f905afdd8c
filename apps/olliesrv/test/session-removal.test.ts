import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT, watchStates } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-removal-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const ollie = ollieCommand(() => o);
const saved = (id: string) => join(o.root, "data", "ollie", "sessions", `${id}.json`);
const listed = async () =>
  (await o.read("session/idx"))
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0]);

/** A coding session whose turn runs `command` with the shell: resolves once the call runs. */
async function running(command: string, background = false): Promise<string> {
  const id = await o.create(`agent=coding cwd=${o.work}`);
  const agent = `session/${id}/agent/main`;
  if (background) {
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command, background } }] },
      { text: "Started." },
    );
    await prompt(o, agent, "start it");
    await vi.waitFor(
      async () => expect(await o.read(`${agent}/proc/idx`)).toMatch(/\tshell\trunning\t/),
      WAIT,
    );
    return id;
  }
  o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command } }] });
  const states = await watchStates(o, agent);
  await o.fsys.writeFile(`${agent}/prompt`, "run it");
  await states.until("calling: shell");
  return id;
}

describe("removing sessions", () => {
  it("rm ends idle sessions and removes their files; one that runs is refused, saying what runs, unless -f", async () => {
    const busy = await running("sleep 100");
    const idle = await o.create(`cwd=${o.work}`);
    o.mock.enqueue({ text: "Noted." });
    await prompt(o, `session/${idle}/agent/main`, "remember this");
    expect(existsSync(saved(idle))).toBe(true);

    const refused = await ollie("rm", busy, idle, "nosuch");
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.split("\n")).toEqual([
      `ollie: ${busy}: main is calling: shell ('ollie rm -f' ends it anyway)`,
      `ollie: nosuch: no session "nosuch" (ollie ls lists them)`,
    ]);
    // The others were removed all the same, with what they saved.
    expect(await listed()).toEqual([busy]);
    expect(existsSync(saved(idle))).toBe(false);

    const forced = await ollie("rm", "-f", busy);
    expect([forced.exitCode, forced.stdout, forced.stderr]).toEqual([0, "", ""]);
    expect(await listed()).toEqual([]);
    expect(existsSync(saved(busy))).toBe(false);
  });

  it("prune removes every session in which nothing runs, never one with a turn or a background process", async () => {
    const busy = await running("sleep 100");
    const background = await running("exec sleep 1000", true);
    const idle = [await o.create(`cwd=${o.work} name=first`), await o.create(`cwd=${o.work}`)];
    // Made a moment ago: nothing is older than an hour.
    const recent = await ollie("prune", "--older", "1h");
    expect(recent.stdout).toBe("0 removed, 4 kept (running, or used in the last 1h)");
    expect(await listed()).toHaveLength(4);

    const pruned = await ollie("prune");
    expect(pruned.exitCode).toBe(0);
    expect(pruned.stdout).toBe(
      [`removed ${idle[0]} (first)`, `removed ${idle[1]}`, "2 removed, 2 kept (running)"].join("\n"),
    );
    expect(await listed()).toEqual([busy, background]);
    const why = await ollie("rm", background);
    expect(why.stderr).toMatch(
      new RegExp(`^ollie: ${background}: main has a tool process running in the background \\(shell \\d+\\)`),
    );
    expect((await ollie("rm", "-f", busy, background)).exitCode).toBe(0);
    expect((await ollie("prune")).stdout).toBe("no sessions");
  });

  it("prune --older goes by when something last ran in a session, which a restart keeps", async () => {
    const ids = [];
    for (const name of ["old", "unstamped", "recent", "woken"])
      ids.push(await o.create(`cwd=${o.work} name=${name}`));
    const [old, unstamped, recent, woken] = ids as [string, string, string, string];
    await o.stop();
    const daysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const edit = (id: string, change: (file: Record<string, unknown>) => void) => {
      const file = JSON.parse(readFileSync(saved(id), "utf8")) as Record<string, unknown>;
      change(file);
      writeFileSync(saved(id), JSON.stringify(file));
    };
    edit(old, (f) => {
      f.created = daysAgo;
      f.active = daysAgo;
    });
    // Saved before `active` was kept: its creation stands for it.
    edit(unstamped, (f) => {
      f.created = daysAgo;
      delete f.active;
    });
    edit(recent, (f) => {
      f.created = daysAgo;
    });
    edit(woken, (f) => {
      f.created = daysAgo;
      f.active = daysAgo;
    });
    await o.restart();
    o.mock.enqueue({ text: "Awake." });
    await prompt(o, `session/${woken}/agent/main`, "wake up");

    const pruned = await ollie("prune", "--older", "1d");
    expect(pruned.stdout).toBe(
      [
        `removed ${old} (old)`,
        `removed ${unstamped} (unstamped)`,
        "2 removed, 2 kept (running, or used in the last 1d)",
      ].join("\n"),
    );
    expect(await listed()).toEqual([recent, woken]);
    expect(new Date(JSON.parse(readFileSync(saved(woken), "utf8")).active).getTime()).toBeGreaterThan(
      Date.now() - 3_600_000,
    );
    await ollie("prune");
  });

  it("refuses a kill --idle it cannot read, on the session's ctl", async () => {
    const id = await o.create(`cwd=${o.work}`);
    for (const [command, problem] of [
      ["kill --idle soon", "kill: --idle takes whole seconds, not 'soon'"],
      ["kill --now", "kill: kill takes nothing, or --idle [SECONDS]"],
      ["kill --idle 5 more", "kill: kill takes nothing, or --idle [SECONDS]"],
      ["kill --idle 3600", /kill: something ran in it \d+ s ago, less than the 3600 s asked/],
    ] as const) {
      await expect(o.fsys.writeFile(`session/${id}/ctl`, `${command}\n`), command).rejects.toThrow(problem);
    }
    await o.fsys.writeFile(`session/${id}/ctl`, "kill --idle 0\n");
    expect(await listed()).toEqual([]);
  });
});
