import { readFileSync } from "node:fs";

/** The lines of a program that are code: neither blank nor only a comment (`//`, or inside `/* … *\/`). */
export function linesOfCode(file: string): number {
  let inBlock = false;
  let count = 0;
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (inBlock) {
      inBlock = !line.includes("*/");
      continue;
    }
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      inBlock = !line.includes("*/");
      continue;
    }
    count++;
  }
  return count;
}
