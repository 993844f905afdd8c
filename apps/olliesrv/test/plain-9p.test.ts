import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "@ollie/backends/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

const NINEP = fileURLToPath(new URL("../node_modules/@ollie/ninep/bin/ninep.js", import.meta.url));
const CYCLES = fileURLToPath(new URL("./fixtures/prompt-cycles.sh", import.meta.url));

/** Answers "question N" (asked on two lines, which must arrive as one prompt) with "answer to question N". */
function answer(request: RecordedRequest) {
  const messages = (request.body as { messages: Array<{ role: string; content: string }> }).messages;
  const asked = messages.findLast((m) => m.role === "user")?.content ?? "";
  const n = /^question (\d+)\nasked on two lines$/.exec(asked)?.[1];
  return { text: n ? `answer to question ${n}` : `a prompt arrived split: ${JSON.stringify(asked)}` };
}

describe("the README's recipe for plain 9P clients", () => {
  let o: Ollie;
  let env: Record<string, string>;
  beforeAll(async () => {
    o = await startOllie("olliesrv-recipe-", { mock: { replies: answer } });
    const bin = join(o.root, "bin");
    mkdirSync(bin);
    symlinkSync(NINEP, join(bin, "ninep"));
    env = { ...o.env, PATH: `${bin}:${o.env.PATH}` };
  });
  afterAll(async () => {
    await o.stop();
    await o.remove();
  });

  it("runs 200 cycles of prompt, wait and reply with nothing but ninep, none hanging", async () => {
    const run = await execa("sh", [CYCLES, "200", o.keyFile], {
      cwd: o.work,
      env,
      extendEnv: false,
      reject: false,
      timeout: 600_000,
    });
    expect(run.stderr).toBe("");
    expect(run).toMatchObject({ exitCode: 0, stdout: "200 cycles, last prompt 200" });
  }, 600_000);

  it("waits for the prompt it names, whoever prompts meanwhile, and explains a number it cannot wait for", async () => {
    // No -k: ninep finds the owner key where ollie does, for the service posted as ollie.
    const ninep = (args: string[], input = "") =>
      execa(NINEP, args, { env, extendEnv: false, reject: false, input });
    const id = (await ninep(["rdwr", "ollie/session/new"], `{"cwd":"${o.work}"}\n`)).stdout;
    const a = `ollie/session/${id}/agent/main`;
    const first = await ninep(["write", "-r", `${a}/prompt`], "question 1\nasked on two lines\n");
    const second = await ninep(["rdwr", `${a}/prompt`], "question 2\n");
    expect([first.stdout, second.stdout]).toEqual(["1", "2"]);
    expect((await ninep(["read", `${a}/prompts/1`])).stdout).toBe("done\nanswer to question 1");
    expect((await ninep(["read", `${a}/prompts/2`])).stdout).toMatch(/^done\na prompt arrived split/);
    expect((await ninep(["ls", `${a}/prompts`])).stdout).toBe("1\n2");
    const listing = [
      (await ninep(["ls", "-ld", a])).stdout,
      ...(await ninep(["ls", "-l", a])).stdout.split("\n"),
    ];
    // What commands printed is the agent's and the owner's: a group of the agent's own, no reading by others.
    const own = / (context|systemprompt)$/;
    for (const line of listing.filter((l) => !own.test(l)))
      expect(line, "owned as NAMESPACE.md says").toContain(` ${id}.main ${id} `);
    const owned = listing.filter((l) => own.test(l));
    expect(owned).toHaveLength(2);
    for (const line of owned) expect(line).toMatch(new RegExp(`^--r--r----- ${id}\\.main ${id}\\.main `));
    const unknown = await ninep(["read", `${a}/prompts/3`]);
    expect(unknown).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining("no prompt 3 has been taken"),
    });
  });
});
