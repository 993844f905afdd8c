// ollie:tool file_grep
// ollie:description Search file contents with a regular expression (JavaScript syntax). Prints path:line:text.
// ollie:param pattern string required  The regular expression
// ollie:param path string  A file or directory to search (default: the working directory)
// ollie:param glob string  Only files whose paths match this glob, e.g. **/*.ts
// ollie:param ignore_case boolean  Match regardless of case
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 120
import { open, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileProblem, pathArg, stringArg, ToolError, tool } from "./lib/tool-io.js";
import { globToRegExp, walkFiles } from "./lib/walk.js";

const MAX_MATCHES = 500;
const MAX_LINE = 300;
const MAX_FILE = 10 * 1024 * 1024;

await tool(async (args) => {
  const source = stringArg(args, "pattern", true);
  let re: RegExp;
  try {
    re = new RegExp(source, args.ignore_case === true ? "i" : "");
  } catch (error) {
    throw new ToolError(`pattern is not a valid regular expression: ${(error as Error).message}`);
  }
  const target = pathArg(args, "path", false);
  const info = await stat(target).catch((error: unknown) => {
    throw fileProblem(error, target);
  });
  const globText = stringArg(args, "glob");
  const only = globText ? globToRegExp(globText) : undefined;
  const root = info.isDirectory() ? target : dirname(target);
  const files = info.isDirectory() ? walkFiles(target) : single(basename(target));
  const out: string[] = [];
  for await (const file of files) {
    if (only && !only.test(file)) continue;
    const text = await readText(join(root, file));
    if (text === undefined) continue;
    for (const [i, line] of text.split("\n").entries()) {
      if (!re.test(line)) continue;
      out.push(`${file}:${i + 1}:${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
      if (out.length >= MAX_MATCHES)
        return `${out.join("\n")}\n[stopped at ${MAX_MATCHES} matches: narrow the search]`;
    }
  }
  return out.length > 0 ? out.join("\n") : `no matches for /${source}/`;
});

async function* single(name: string) {
  yield name;
}

/** A file's text, or undefined for a binary, huge or unreadable file. */
async function readText(file: string): Promise<string | undefined> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE) return undefined;
    const data = await handle.readFile();
    return data.subarray(0, 8192).includes(0) ? undefined : data.toString("utf8");
  } finally {
    await handle.close();
  }
}
