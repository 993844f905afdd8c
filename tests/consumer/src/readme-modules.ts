import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Document } from "./documents.js";
import { fencedBlocks } from "./readme-code.js";

/** The blocks that are code to compile, by language, and the extension each is written with. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  ts: ".ts",
  typescript: ".ts",
  js: ".js",
  javascript: ".js",
  mjs: ".mjs",
};

export const CODE_LANGUAGES: ReadonlySet<string> = new Set(Object.keys(EXTENSIONS));

/** A TypeScript or JavaScript block of a document, written into the consumer project as a module. */
export interface ReadmeModule {
  /** Where the block is: its document's name and its opening fence's line. */
  document: string;
  line: number;
  language: string;
  /** The module, relative to the consumer project (`src/readme/@ollie/virtfs/README-18.ts`). */
  source: string;
  /** What tsc makes of it (`out/readme/@ollie/virtfs/README-18.js`). */
  output: string;
}

/**
 * Writes every TypeScript and JavaScript block of the documents into the consumer project's `src/readme/`,
 * each a module on its own (the project's tsconfig says `moduleDetection: force`): a block imports what it
 * uses, and a fragment declares what it takes as given (`declare const agent: Agent;`).
 */
export function writeReadmeModules(projectDir: string, documents: Document[]): ReadmeModule[] {
  const modules: ReadmeModule[] = [];
  for (const { file, name } of documents) {
    for (const block of fencedBlocks(file, name)) {
      const extension = EXTENSIONS[block.language];
      if (!extension) continue;
      const base = `readme/${name.replace(/\.md$/, "")}-${block.line}`;
      const module: ReadmeModule = {
        document: name,
        line: block.line,
        language: block.language,
        source: `src/${base}${extension}`,
        output: `out/${base}${extension === ".mjs" ? ".mjs" : ".js"}`,
      };
      mkdirSync(dirname(join(projectDir, module.source)), { recursive: true });
      writeFileSync(join(projectDir, module.source), block.code);
      modules.push(module);
    }
  }
  return modules;
}

/**
 * A tsc diagnostic of a module (`src/readme/…-21.ts(3,5): error TS2304: …`) as a place in its document
 * (`@ollie/x/README.md:24:5: error TS2304: …`): the block's first line is the one after its fence.
 */
export function inDocument(module: ReadmeModule, diagnostic: string): string {
  const at = /^[^(]*\((\d+),(\d+)\): /.exec(diagnostic);
  if (!at) return diagnostic;
  return `${module.document}:${module.line + Number(at[1])}:${at[2]}: ${diagnostic.slice(at[0].length)}`;
}
