import { readFileSync } from "node:fs";

/** A fenced code block of a Markdown file, as a reader copies it. */
export interface FencedBlock {
  /** The Markdown file, as messages name it (`@ollie/virtfs/README.md`). */
  document: string;
  /** The line of the opening fence (1-based): the block's first line is `line + 1`. */
  line: number;
  /** The info string's first word (`ts`, `sh`, `console`), "" for a bare fence. */
  language: string;
  /** The block's lines, without the fence's own indentation (a block inside a list item is indented). */
  code: string;
}

const OPENING = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/;

/** Every fenced block of the Markdown file `file`, in order; `document` names it in messages. */
export function fencedBlocks(file: string, document = file): FencedBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = OPENING.exec(lines[i]!);
    if (!opening) continue;
    const [, indent = "", fence = "", language = ""] = opening;
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let end = i + 1;
    for (; end < lines.length && !closing.test(lines[end]!); end++) {
      const line = lines[end]!;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ document, line: i + 1, language, code: body.map((l) => `${l}\n`).join("") });
    i = end;
  }
  return blocks;
}

/** The code of a Markdown file's fenced blocks in the given language, in order. */
export function readmeCode(readme: string, language: string): string[] {
  return fencedBlocks(readme)
    .filter((block) => block.language === language)
    .map((block) => block.code);
}

/** The targets of a README's relative links (not URLs, not anchors), without their #fragments. */
export function relativeLinks(readme: string): string[] {
  const links = [...readFileSync(readme, "utf8").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return links.filter((l) => !/^[a-z]+:/i.test(l) && !l.startsWith("#")).map((l) => l.split("#")[0]!);
}
