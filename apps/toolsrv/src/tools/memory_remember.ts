// ollie:tool memory_remember
// ollie:description Keep a fact, decision or preference for later sessions, as a Markdown note.
// ollie:param text string required  What to remember
// ollie:param title string  A short title (default: the start of the text)
// ollie:param tags string[]  Words to find it by
// ollie:timeout 30
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { memoryDir, memoryFileName } from "./lib/memory.js";
import { fileProblem, stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const text = stringArg(args, "text", true).trim();
  if (text === "") throw new ToolError("text is empty: there is nothing to remember");
  const title = stringArg(args, "title")?.trim() || text.split("\n", 1)[0]!.slice(0, 60);
  const tags = Array.isArray(args.tags) ? args.tags.map(String) : [];
  const dir = memoryDir();
  let name = memoryFileName(new Date(), title, tags);
  try {
    await mkdir(dir, { recursive: true });
    for (let n = 2; ; n++) {
      try {
        await writeFile(join(dir, name), `# ${title}\n\n${text}\n`, { flag: "wx" });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        name = name.replace(/(__[^-.]+)/, `$1-${n}`);
      }
    }
  } catch (error) {
    throw fileProblem(error, join(dir, name));
  }
  return `remembered as ${name}`;
});
