import { join } from "node:path";
import { execa } from "execa";
import { expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { pasteIntoBash } from "./interactive-bash.js";
import { readerShell } from "./reader-shell.js";
import { fencedBlocks } from "./readme-code.js";

it("serves the virtfs README's notes service, and its commands read it as pasted", async () => {
  const project = projectAt(inject("consumerDir"));
  const readme = join(project.dir, "node_modules", "@ollie", "virtfs", "README.md");
  const example = inject("readmeModules").find((m) => m.document === "@ollie/virtfs/README.md")!;
  const commands = fencedBlocks(readme).find((b) => b.language === "sh" && b.code.includes(" ctl\n"))!;
  const shell = readerShell(project, "virtfs-readme");
  // The README's address, in a directory of this test's own rather than /tmp: the quoting is left as it is.
  const address = `unix!${join(shell.cwd, "notes.sock")}`;
  expect(commands.code).toContain("'unix!/tmp/notes.sock'");
  const service = execa(process.execPath, [join(project.dir, example.output), address], {
    ...shell,
    extendEnv: false,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      service.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("serving notes") && resolve());
      service.catch(reject);
    });
    const bash = pasteIntoBash(commands.code.replaceAll("unix!/tmp/notes.sock", address), shell);
    // The last command follows `events`: it shows every change (the create's save, the write's, the remove),
    // then waits for more.
    await bash.shown("removed bread\n");
    service.kill();
    const { stdout } = await bash.end();
    expect(stdout).toBe("bread\ntodo\nbuy milk\nsaved todo\nsaved bread\nsaved bread\nremoved bread");
  } finally {
    service.kill();
    await service.catch(() => {});
  }
});
