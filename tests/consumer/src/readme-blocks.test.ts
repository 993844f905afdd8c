import { expect, inject, it } from "vitest";
import { installedDocuments, repositoryDocuments } from "./documents.js";
import { fencedBlocks } from "./readme-code.js";
import { CODE_LANGUAGES } from "./readme-modules.js";
import { SHELL_LANGUAGES } from "./shell-commands.js";

/**
 * Blocks shown as they are: a file's text, a format, a screen or output, another program's configuration
 * (an editor's Lua or Emacs Lisp). Nothing in them runs here.
 */
const SHOWN = new Set(["", "text", "json", "yaml", "ini", "lua", "elisp"]);

it("every fenced block is code the checks take (TypeScript, JavaScript, shell) or shown as it is", () => {
  const documents = [...installedDocuments(inject("consumerDir")), ...repositoryDocuments()];
  const unknown = documents
    .flatMap(({ file, name }) => fencedBlocks(file, name))
    .filter(
      (b) => !CODE_LANGUAGES.has(b.language) && !SHELL_LANGUAGES.has(b.language) && !SHOWN.has(b.language),
    )
    .map((b) => `${b.document}:${b.line}: ${b.language}`);
  expect(unknown, "a language no check knows: check it, or add it to SHOWN when nothing in it runs").toEqual(
    [],
  );
});
