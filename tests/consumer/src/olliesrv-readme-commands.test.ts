import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { type InstalledOllie, startInstalledOllie } from "./installed-ollie.js";
import { pasteIntoBash } from "./interactive-bash.js";
import { MONOREPO } from "./pack-workspace.js";
import { readerShell } from "./reader-shell.js";
import { type FencedBlock, fencedBlocks } from "./readme-code.js";

// The READMEs' commands that need nothing but a running olliesrv and a model, run as pasted against the
// installed olliesrv, its model the mock provider. Every other command is checked, not run
// (readme-shell.test.ts): it needs a provider's key or network (`ollie init anthropic`, `ollie login`), a
// fixed port, root (`mount`), or a program of the reader's own, or it starts a daemon of its own.
const project = projectAt(inject("consumerDir"));
const shell = readerShell(project, "readme-commands");
const reply = "Nothing here yet: an empty directory.";
let ollie: InstalledOllie;

/** The block of a document that holds `line`. */
function blockWith(file: string, line: string): FencedBlock {
  const block = fencedBlocks(file).find((b) => b.code.split("\n").some((l) => l.startsWith(line)));
  if (!block) throw new Error(`${file} has no block with the line ${line}`);
  return block;
}

const olliesrvReadme = join(project.dir, "node_modules", "olliesrv", "README.md");

beforeAll(async () => {
  // One reply for each test's turn, in whichever order they come.
  ollie = await startInstalledOllie(project, shell.cwd, [{ text: reply }, { text: reply }]);
});

afterAll(async () => {
  const status = await ollie.stop();
  expect(status, `olliesrv's log:\n${ollie.log()}`).toBe(0);
});

const paste = (commands: string) => pasteIntoBash(commands, { cwd: ollie.work, env: shell.env }).end();

it("the root README's plain-9P prompt: ninep finds the owner key, makes a session here, prompts, and reads the outcome and reply", async () => {
  const block = blockWith(join(MONOREPO, "README.md"), 'id=$(echo "agent=coding cwd=$PWD" | ninep rdwr');
  const { exitCode, stdout, stderr } = await paste(block.code);
  expect(exitCode, stderr).toBe(0);
  expect(stdout).toMatch(/^done\b/);
  expect(stdout).toContain(reply);
});

it("olliesrv's README: an orchestrator session, asked", async () => {
  const block = blockWith(olliesrvReadme, "id=$(ollie new --agent orchestrator");
  const { exitCode, stdout, stderr } = await paste(block.code);
  expect(exitCode, stderr).toBe(0);
  expect(stdout).toContain(reply);
});

it("olliesrv's README: `ollie init` lists the providers its comment names", async () => {
  const line = blockWith(olliesrvReadme, "ollie init  ").code.split("\n")[0]!;
  const named = line.split("# the providers: ")[1]!.split(", ");
  const { exitCode, stdout, stderr } = await paste(`${line}\n`);
  expect(exitCode, stderr).toBe(0);
  for (const provider of named) expect(stdout).toMatch(new RegExp(`^  ${provider} `, "m"));
});

it("olliesrv's README: ninep lists the sessions on the mount socket, as its mount block says", async () => {
  const line = blockWith(olliesrvReadme, "ninep -L -a ")
    .code.split("\n")
    .find((l) => l.startsWith("ninep -L"))!;
  const { exitCode, stdout, stderr } = await paste(`${line}\n`);
  expect(exitCode, stderr).toBe(0);
  expect(stdout.split("\n")).toEqual(expect.arrayContaining(["idx", "new"]));
});
