import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { File } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie, watchStates } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-idxwait-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

/** Opens `session/idxwait`: its first read answers once the index differs from what it is now. */
const openWait = () => o.fsys.open("session/idxwait");

/** One blocking read of the whole index (reads past the first give the rest of the same answer). */
async function next(f: File): Promise<string> {
  const chunks: Buffer[] = [];
  for (let offset = 0; ; ) {
    const chunk = await f.read(offset);
    if (chunk.length === 0) break;
    chunks.push(chunk);
    offset += chunk.length;
    if (chunk.length < f.chunkSize) break;
  }
  return Buffer.concat(chunks).toString();
}

/** The index line of session `id`, as `session/idx` has it now. */
async function lineOf(id: string): Promise<string | undefined> {
  return (await o.read("session/idx")).split("\n").find((line) => line.startsWith(`${id}\t`));
}

describe("session/idxwait", () => {
  it("answers a read waiting when a session is made, renamed and killed, with the whole of session/idx", async () => {
    const f = await openWait();
    try {
      const before = await o.read("session/idx");
      const made = next(f);
      const id = await o.create(`agent=coding cwd=${o.work} name=watched`);
      const afterMade = await made;
      expect(afterMade).toBe(await o.read("session/idx"));
      expect(afterMade).toBe(`${before}${id}\twatched\tidle\t${o.work}\n`);

      const renamed = next(f);
      await o.fsys.writeFile(`session/${id}/ctl`, "rename seen-renamed\n");
      const afterRename = await renamed;
      expect(afterRename).toBe(await o.read("session/idx"));
      expect(await lineOf(id)).toBe(`${id}\tseen-renamed\tidle\t${o.work}`);

      const killed = next(f);
      await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
      const afterKill = await killed;
      expect(afterKill).toBe(await o.read("session/idx"));
      expect(afterKill).toBe(before);
    } finally {
      await f.close();
    }
  });

  it("answers when a main agent's state changes, as session/idx shows it", async () => {
    const dir = join(o.work, "stateful");
    await execa("mkdir", ["-p", dir]);
    await execa("mkfifo", [join(dir, "gate")]);
    const id = await o.create(`agent=coding cwd=${dir}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { text: "Waiting.", toolCalls: [{ name: "shell", arguments: { command: "read w < gate" } }] },
      { text: "Through." },
    );
    const f = await openWait();
    try {
      const states = await watchStates(o, agent);
      await o.fsys.writeFile(`${agent}/prompt`, "Go through the gate");
      // Each answer is the index as it was then; the agent's state runs through its turn to the tool.
      const seen: string[] = [];
      while (!seen.includes("calling: shell")) {
        const line = (await next(f)).split("\n").find((l) => l.startsWith(`${id}\t`));
        seen.push(line?.split("\t")[2] ?? "");
      }
      expect(seen.at(-1)).toBe("calling: shell");
      expect(await lineOf(id)).toBe(`${id}\t${id}\tcalling: shell\t${dir}`);
      await writeFile(join(dir, "gate"), "go\n");
      await states.until("idle");
      // The turn ended after the last read: the next read answers at once with the state it ended in.
      expect((await next(f)).split("\n").find((l) => l.startsWith(`${id}\t`))).toBe(
        `${id}\t${id}\tidle\t${dir}`,
      );
    } finally {
      await f.close();
    }
  });

  it("keeps no change from a reader that was not waiting: its next read answers at once with the index now", async () => {
    const f = await openWait();
    try {
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.push(await o.create(`agent=coding cwd=${o.work} name=burst-${n}`));
      await o.fsys.writeFile(`session/${ids[0]}/ctl`, "rename burst-renamed\n");
      const now = await o.read("session/idx");
      expect(await next(f)).toBe(now);
      for (const id of ids) expect(now).toContain(`${id}\t`);
      expect(now).toContain(`${ids[0]}\tburst-renamed\t`);
    } finally {
      await f.close();
    }
  });

  it("lets a read go when it is flushed, and answers a read on another fid as before", async () => {
    const f = await openWait();
    const other = await openWait();
    try {
      const abort = new AbortController();
      const flushed = f.read(0, f.chunkSize, abort.signal);
      // A round trip on the same connection after it: the daemon has the read, and it waits.
      await o.read("session/idx");
      abort.abort(new Error("not wanted"));
      await expect(flushed).rejects.toThrow("not wanted");
      const made = next(other);
      const id = await o.create(`agent=coding cwd=${o.work} name=after-flush`);
      expect(await made).toContain(`${id}\tafter-flush\t`);
    } finally {
      await f.close();
      await other.close();
    }
  });
});
