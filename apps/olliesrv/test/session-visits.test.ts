import { OWRITE } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

// Between visits (no fid in a session's directory) the daemon holds no handlers for the session's files;
// what a client sees of them must not change for that.
let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-visits-");
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

/** Waits until the daemon holds no fid but the harness's root: no client is inside any session. */
async function noneInside(): Promise<void> {
  await vi.waitFor(async () => expect(await o.read("stats")).toMatch(/^fids [12]$/m), { timeout: 5000 });
}

describe("a session's files between visits", () => {
  it("keep their qids, versions and times, and blocking reads still wait and wake", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const files = ["", "plan", "ctl", "agent/main", "agent/main/prompt", "agent/main/statewait"].map((f) =>
      `session/${id}/${f}`.replace(/\/$/, ""),
    );
    await o.fsys.writeFile(`session/${id}/plan`, "first plan");
    const before = await Promise.all(files.map((f) => o.fsys.stat(f)));
    await noneInside();
    await o.fsys.writeFile(`session/${id}/plan`, "second plan");
    await noneInside();
    const after = await Promise.all(files.map((f) => o.fsys.stat(f)));
    expect(after.map((s) => s.qid.path)).toEqual(before.map((s) => s.qid.path));
    expect(after.map((s) => s.mtime >= before[0]!.mtime)).toEqual(files.map(() => true));
    expect(after[1]!.qid.version).toBe(before[1]!.qid.version + 1);
    expect(await o.read(`session/${id}/plan`)).toBe("second plan");

    await noneInside();
    o.mock.enqueue({ text: "pong" });
    expect(await prompt(o, `session/${id}/agent/main`, "ping")).toContain("idle");
    expect(await o.read(`session/${id}/agent/main/chat`)).toContain("pong");
  });

  it("list an agent profile created and not yet written after its creator left", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const f = await o.fsys.create(`session/${id}/agents/draft.json`, { mode: OWRITE });
    await f.close();
    await noneInside();
    expect((await o.fsys.readdir(`session/${id}/agents`)).map((s) => s.name)).toEqual(["draft.json"]);
    await o.fsys.remove(`session/${id}/agents/draft.json`);
    expect(await o.fsys.readdir(`session/${id}/agents`)).toEqual([]);
  });
});
