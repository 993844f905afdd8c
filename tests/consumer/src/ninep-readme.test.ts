import { join } from "node:path";
import { expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { pasteIntoBash } from "./interactive-bash.js";
import { readerShell } from "./reader-shell.js";
import { fencedBlocks } from "./readme-code.js";

it("runs the ninep README's commands as pasted: ramfs in one shell, then the commands against it", async () => {
  const project = projectAt(inject("consumerDir"));
  const shell = readerShell(project, "ninep-readme");
  const blocks = fencedBlocks(join(project.dir, "node_modules", "@ollie", "ninep", "README.md"));
  const serving = blocks.findIndex((b) => b.code.startsWith("ninep ramfs &"));
  const [serve, commands] = [blocks[serving]!, blocks[serving + 1]!];
  expect(commands.code).toMatch(/^ninep create -d ramfs\/notes\n/);

  const server = pasteIntoBash(serve.code, shell);
  try {
    await server.shown("ninep ramfs: serving on", "stderr");
    const { exitCode, stdout, stderr } = await pasteIntoBash(commands.code, shell).end();
    expect(exitCode, stderr).toBe(0);
    const [read, listing, stat] = stdout.split("\n");
    expect(read).toBe("buy milk");
    expect(listing).toMatch(/^--rw-r--r-- .* 9 .* todo$/);
    expect(stat).toMatch(/^\('todo' .* l 9 /);
  } finally {
    // What the reader's Ctrl-C or `kill %1` does; bash ends once ramfs has exited (it holds bash's stderr).
    await server.end("kill %1\n");
  }
});
