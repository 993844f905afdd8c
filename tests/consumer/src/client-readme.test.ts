import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { startInstalledOllie } from "./installed-ollie.js";
import { readmeCode } from "./readme-code.js";

it("runs the client README's example, as written, against the installed olliesrv", async () => {
  const project = projectAt(inject("consumerDir"));
  // Directories of its own: another test file runs an olliesrv of its own meanwhile.
  const root = join(project.dir, "client-readme");
  mkdirSync(root, { recursive: true });
  const readme = join(project.dir, "node_modules", "@ollie", "client", "README.md");
  const ollie = await startInstalledOllie(project, root, [
    { text: "Hello there, nice to meet!", chunkSize: 3 },
  ]);
  let status: number | undefined;
  try {
    writeFileSync(join(root, "example.mjs"), readmeCode(readme, "js")[0]!);
    const { stdout } = await execa(process.execPath, [join(root, "example.mjs")], {
      cwd: ollie.work,
      env: ollie.env,
      extendEnv: false,
    });
    const printed = readFileSync(readme, "utf8")
      .split("`node example.mjs` prints:\n\n```\n")[1]!
      .split("```")[0]!;
    expect(`${stdout}\n`).toBe(printed);
    // It ended its session.
    const ls = await execa(project.bin("ollie"), ["ls"], { env: ollie.env, extendEnv: false });
    expect(ls.stdout).toBe("");
  } finally {
    status = await ollie.stop();
  }
  expect(status, `olliesrv's log:\n${ollie.log()}`).toBe(0);
});
