import { describe, expect, inject, it } from "vitest";
import { installedDocuments, repositoryDocuments } from "./documents.js";
import { pasteComplaints, scriptComplaints } from "./paste-check.js";
import { fencedBlocks } from "./readme-code.js";
import { isScript, pastedCommands, SHELL_LANGUAGES, strayPrompts } from "./shell-commands.js";

// Every shell block of every document — the installed packages' and those of a fresh clone — as pasted into
// an interactive bash: each line survives history expansion, and the whole parses. Nothing runs here; what can
// run offline runs in olliesrv-readme-commands.test.ts, ninep-readme.test.ts and virtfs-readme.test.ts.
const documents = [...installedDocuments(inject("consumerDir")), ...repositoryDocuments()];
const blocks = documents
  .flatMap(({ file, name }) => fencedBlocks(file, name))
  .filter((block) => SHELL_LANGUAGES.has(block.language))
  .map((block) => ({ ...block, where: `${block.document}:${block.line}` }));

describe("commands", () => {
  it.each(blocks.filter((block) => !isScript(block)))(
    "$where pastes into an interactive bash as it is: no history expansion, and it parses",
    async (block) => {
      expect(strayPrompts(block), "lines behind a `$ ` prompt outside a console block").toEqual([]);
      expect(await pasteComplaints(pastedCommands(block)), pastedCommands(block)).toBe("");
    },
  );
});

describe("scripts", () => {
  it.each(blocks.filter(isScript))("$where parses as the script it is", async (block) => {
    expect(await scriptComplaints(block.code), block.code).toBe("");
  });
});

it("the root README, CONTRIBUTING.md and every package's README are read", () => {
  const names = documents.map((d) => d.name);
  expect(names).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "@ollie/virtfs/README.md"]));
  expect(blocks.map((b) => b.document)).toContain("README.md");
});
