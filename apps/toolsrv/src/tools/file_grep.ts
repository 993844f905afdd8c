// ollie:tool file_grep
// ollie:description Search file contents with a regular expression (JavaScript syntax). Prints path:line:text.
// ollie:description Skips .git, node_modules and what .gitignore and .ignore files exclude; no_ignore keeps all but .git.
// ollie:param pattern string required  The regular expression
// ollie:param path string  A file or directory to search (default: the working directory)
// ollie:param glob string  Only files whose paths match this glob, e.g. **/*.ts
// ollie:param ignore_case boolean  Match regardless of case
// ollie:param no_ignore boolean  Also search ignored files and node_modules
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 120
import { open, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import picomatch from "picomatch";
import { findFiles, STOPPED_WALK } from "./lib/find-files.js";
import { fileProblem, pathArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

const MAX_MATCHES = 500;
const MAX_FILES = 100_000;
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
  const only = stringArg(args, "glob");
  const root = info.isDirectory() ? target : dirname(target);
  // A file named outright is searched even if ignored; the glob still applies to its name.
  const { files, truncated } = info.isDirectory()
    ? await findFiles(target, only ?? "**/*", { noIgnore: args.no_ignore === true })
    : {
        files: [basename(target)].filter(
          (name) => only === undefined || picomatch(only, { dot: true })(name),
        ),
        truncated: false,
      };
  const out: string[] = [];
  for (const file of files.slice(0, MAX_FILES)) {
    const text = await readText(join(root, file));
    if (text === undefined) continue;
    for (const [i, line] of text.split("\n").entries()) {
      if (!re.test(line)) continue;
      out.push(`${file}:${i + 1}:${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
      if (out.length >= MAX_MATCHES)
        return `${out.join("\n")}\n[stopped at ${MAX_MATCHES} matches: narrow the search]`;
    }
  }
  const found = out.length > 0 ? out.join("\n") : `no matches for /${source}/`;
  if (files.length > MAX_FILES)
    return `${found}\n[searched only the first ${MAX_FILES} of ${files.length} files: narrow path or glob]`;
  return truncated ? `${found}\n[${STOPPED_WALK}: narrow path or glob]` : found;
});

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
