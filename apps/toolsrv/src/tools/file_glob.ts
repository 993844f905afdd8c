// ollie:tool file_glob
// ollie:description Find files whose paths match a glob (*, ?, **, {a,b}, [abc]), relative to a directory.
// ollie:description Skips .git, node_modules and what .gitignore and .ignore files exclude; no_ignore keeps all but .git.
// ollie:param pattern string required  The glob, e.g. src/**/*.ts
// ollie:param path string  The directory to search from (default: the working directory)
// ollie:param no_ignore boolean  Also list ignored files and node_modules
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 60
import { stat } from "node:fs/promises";
import { findFiles, STOPPED_WALK } from "./lib/find-files.js";
import { fileProblem, pathArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

const MAX = 1000;

await tool(async (args) => {
  const pattern = stringArg(args, "pattern", true);
  const root = pathArg(args, "path", false);
  const info = await stat(root).catch((error: unknown) => {
    throw fileProblem(error, root);
  });
  if (!info.isDirectory()) throw new ToolError(`${root} is not a directory`);
  const { files: found, truncated } = await findFiles(root, pattern, { noIgnore: args.no_ignore === true });
  const partial = truncated ? `\n[${STOPPED_WALK}: narrow path or pattern]` : "";
  if (found.length === 0) return `no files under ${root} match ${pattern}${partial}`;
  if (found.length > MAX)
    return `${found.slice(0, MAX).join("\n")}\n[more than ${MAX} matches: narrow the pattern]`;
  return `${found.join("\n")}${partial}`;
});
