// ollie:tool memory_recall
// ollie:description Search the notes kept with memory_remember. Every word of the query counts; the best
// ollie:description matches come first, in full.
// ollie:param query string required  Words to look for
// ollie:param limit integer  How many notes at most (default 5)
// ollie:parallel read
// ollie:tier cold
// ollie:timeout 30
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { memoryDir } from "./lib/memory.js";
import { numberArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const words = stringArg(args, "query", true)
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 1);
  if (words.length === 0) throw new ToolError("query has no words to look for");
  const limit = Math.max(1, numberArg(args, "limit", 5));
  const dir = memoryDir();
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".md"));
  const scored: Array<{ name: string; text: string; score: number }> = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), "utf8").catch(() => "");
    const hay = `${name}\n${text}`.toLowerCase();
    let score = 0;
    for (const w of words) score += hay.split(w).length - 1;
    if (score > 0) scored.push({ name, text, score });
  }
  if (scored.length === 0) return `no memories match "${words.join(" ")}"`;
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? 1 : -1));
  return scored
    .slice(0, limit)
    .map((m) => `## ${m.name}\n${m.text.trim()}`)
    .join("\n\n");
});
