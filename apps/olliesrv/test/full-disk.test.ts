import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { INTERRUPTED_TURN } from "@ollie/agent-core/sessions";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, watchStates } from "./harness.js";

/**
 * A full disk under the sessions directory (a 256 KiB tmpfs mounted over it; root only, as in CI and
 * containers — a real ENOSPC from the kernel, for the session file and the journals alike): a save that
 * fails says so, the log says it once, rounds finished meanwhile are saved by the retry timer once there is
 * room and survive a kill -9; kill works, and SIGTERM exits saying what could not be saved.
 */

const asRoot = process.getuid?.() === 0;
let o: Ollie;
let dir: string;

/** Fills the tmpfs to the last byte. */
function fill(): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), Buffer.alloc(16 * 1024));
    } catch {
      try {
        writeFileSync(join(dir, `filler-${i}-tail`), Buffer.alloc(512));
      } catch {
        return;
      }
    }
  }
}

const free = () => {
  for (const f of readdirSync(dir)) if (f.startsWith("filler-")) rmSync(join(dir, f));
};

beforeAll(async () => {
  if (!asRoot) return;
  o = await startOllie("olliesrv-full-disk-");
  dir = join(o.root, "data", "ollie", "sessions");
  await execa("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
});
afterAll(async () => {
  if (!asRoot) return;
  await o.stop().catch(() => {});
  await execa("umount", [dir], { reject: false });
  await o.remove();
});

describe.runIf(asRoot)("a full disk", () => {
  it("fails a save with the reason, and the next save once there is room succeeds", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=first`);
    fill();
    await expect(o.fsys.writeFile(`session/${id}/ctl`, "rename second\n")).rejects.toThrow(
      /ENOSPC|no space/i,
    );
    await expect(o.create(`agent=coding cwd=${o.work} name=never`)).rejects.toThrow(/ENOSPC|no space/i);
    expect(await o.read("session/idx")).not.toContain("never");
    free();
    await o.fsys.writeFile(`session/${id}/ctl`, "rename third\n");
    expect(readdirSync(dir)).toContain(`${id}.json`);
    expect(await o.read("session/idx")).toContain(`${id}\tthird\t`);
  });

  it("keeps the rounds that finished while it was full, saves them once there is room, logging it once", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=busy`);
    const agent = `session/${id}/agent/main`;
    const gate = join(o.work, "gate");
    await execa("mkfifo", [gate]);
    // Rounds big enough that the journal runs out of room too (a tmpfs page holds a few of its lines).
    const write = (n: number) => ({
      toolCalls: [
        { name: "file_write", arguments: { path: `round-${n}.txt`, content: `${n}`.repeat(3000) } },
      ],
    });
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "read word < gate; echo round 1" } }] },
      write(2),
      write(3),
      write(4),
      { text: "Four rounds done." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Do four rounds");
    // Round 1's call is running (it has the gate open) when the disk fills up; it and three more finish.
    const held = await open(gate, "w");
    fill();
    await held.write("go\n");
    await held.close();
    await states.until("idle");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    expect(await o.read(`${agent}/chat`)).toMatch(/! the session could not be saved: ENOSPC/);

    // Room again: the retry timer saves it, with nothing else happening (it backs off to 30 s).
    free();
    const saved = new RegExp(`session ${id} saved again, after (\\d+) failed save\\(s\\)`);
    await vi.waitFor(() => expect(o.log()).toMatch(saved), { timeout: 60_000, interval: 100 });
    // Each round's save failed (and the turn's last, and those made for the journal's entries once it had
    // no room either): the log said so once, then counted them.
    expect(Number(saved.exec(o.log())![1])).toBeGreaterThan(5);
    expect(o.log().match(new RegExp(`ERROR .*session ${id} could not be saved: ENOSPC`, "g"))).toHaveLength(
      1,
    );

    await o.crash();
    await o.restart();
    const file = JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8")) as {
      agents: Array<{ session: { messages: Array<{ role: string; content: string }> } }>;
    };
    const messages = file.agents[0]!.session.messages;
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      ...["assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "tool"],
      "assistant",
    ]);
    expect(messages[2]!.content).toBe("round 1\n");
    expect(messages.at(-1)!.content).toBe("Four rounds done.");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).not.toContain(INTERRUPTED_TURN);
    expect(chat).toContain("Four rounds done.");
  }, 90_000);

  it("does not stop a session from being killed", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    fill();
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    expect(await o.read("session/idx")).not.toContain(id);
    expect(readdirSync(dir)).not.toContain(`${id}.json`);
    free();
  });

  it("lets SIGTERM exit, logging each session it could not save and exiting 1", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    fill();
    o.child.kill("SIGTERM");
    const result = await o.child;
    expect(result.exitCode).toBe(1);
    expect(o.log()).toMatch(new RegExp(`could not save session ${id}: .*(ENOSPC|no space)`, "i"));
    free();
  });
});
