// ollie:tool file_write
// ollie:description Write a whole file, creating it and its directories if needed and replacing what was there.
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param content string required  Everything the file will hold
// ollie:timeout 30
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileProblem, pathArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const path = pathArg(args);
  const content = stringArg(args, "content", true);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${path} is a directory`);
  const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temp, content, { mode: existing ? existing.mode & 0o7777 : 0o644 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw fileProblem(error, path);
  }
  const bytes = Buffer.byteLength(content);
  return `${existing ? "replaced" : "created"} ${path} (${bytes} bytes)`;
});
