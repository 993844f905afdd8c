import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { startInstalledOllie } from "./installed-ollie.js";

it("the installed olliesrv runs a turn against the mock provider, with a sandboxed file_write", async () => {
  const project = projectAt(inject("consumerDir"));
  const ollie = await startInstalledOllie(project, project.dir, [
    {
      text: "I'll write the greeting into a file.",
      toolCalls: [
        {
          name: "file_write",
          arguments: { path: "greeting.txt", content: "Hello from inside the sandbox!\n" },
        },
      ],
    },
    { text: "Done: greeting.txt now holds the greeting." },
  ]);
  const { env, work } = ollie;
  let status: number | undefined;
  try {
    const run = (...args: string[]) =>
      execa(project.bin("ollie"), args, { cwd: work, env, extendEnv: false });
    const session = (await run("new", "--agent", "coding")).stdout.trim();
    const asked = await run("ask", session, "Write a greeting into greeting.txt");
    expect(asked.stdout).toContain("Done: greeting.txt now holds the greeting.");
    expect(readFileSync(join(work, "greeting.txt"), "utf8")).toBe("Hello from inside the sandbox!\n");
  } finally {
    status = await ollie.stop();
  }
  expect(status, `olliesrv's log:\n${ollie.log()}`).toBe(0);
});
