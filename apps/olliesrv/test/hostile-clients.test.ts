import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OREAD } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-hostile-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const BLOCKING = ["statewait", "turnwait", "tail", "fifo.out"];

describe("readers blocked on a session that is killed", () => {
  it("are woken with an error that says so", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const outcomes: string[] = [];
    const reads = await Promise.all(
      BLOCKING.map(async (name) => {
        const f = await o.fsys.open(`${agent}/${name}`, OREAD);
        // Wrapped, so that opening all four does not wait for the reads.
        return {
          done: f.read(0, 4096).then(
            (data) => outcomes.push(`${name}: read ${JSON.stringify(data.toString())}`),
            (error: Error) => outcomes.push(`${name}: ${error.message}`),
          ),
        };
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(outcomes, "every reader is blocked before the kill").toEqual([]);
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    await Promise.all(reads.map((r) => r.done));
    expect(outcomes.sort()).toEqual(
      BLOCKING.map((name) => `${name}: ${agent}/${name}: session ${id} was killed`).sort(),
    );
  });
});

describe("a prompt", () => {
  it("longer than 1 MiB is refused, saying the limit, and nothing is submitted", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await expect(o.fsys.writeFile(`${agent}/prompt`, "x".repeat(1024 * 1024 + 1))).rejects.toThrow(
      "a prompt is at most 1 MiB",
    );
    expect(await o.read(`${agent}/prompt.prev`)).toBe("");
    expect(await o.read(`${agent}/state`)).toBe("idle\n");
  });
});

describe("a session spec", () => {
  it("naming an unknown backend, a missing profile or a broken one is refused at once, saying why", async () => {
    const agents = join(o.root, "config", "ollie", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, "broken.json"), '{ "model": 42 }\n');
    await expect(o.create(`agent=coding cwd=${o.work} backend=nosuch`)).rejects.toThrow(
      "no backend profile 'nosuch' (profiles: mock, other, down)",
    );
    await expect(o.create(`agent=nosuch cwd=${o.work}`)).rejects.toThrow("no agent profile 'nosuch'");
    await expect(o.create(`agent=broken cwd=${o.work}`)).rejects.toThrow(/broken\.json/);
    await expect(o.create("agent=../../etc/x")).rejects.toThrow("'../../etc/x' is not a profile name");
    expect(await o.read("session/idx")).not.toContain("nosuch");
  });
});
