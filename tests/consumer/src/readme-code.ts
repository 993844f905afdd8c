import { readFileSync } from "node:fs";

/** The fenced code blocks of a README in the given language, in order, as a reader would copy them. */
export function readmeCode(readme: string, language: string): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  for (const match of readFileSync(readme, "utf8").matchAll(fence)) blocks.push(match[1]!);
  return blocks;
}

/** The targets of a README's relative links (not URLs, not anchors), without their #fragments. */
export function relativeLinks(readme: string): string[] {
  const links = [...readFileSync(readme, "utf8").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return links.filter((l) => !/^[a-z]+:/i.test(l) && !l.startsWith("#")).map((l) => l.split("#")[0]!);
}
