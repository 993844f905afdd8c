// ollie:tool file_read
// ollie:description Read a text file, with line numbers. Long files come in pages: give offset to read on.
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param offset integer  The first line to read, counting from 1 (default 1)
// ollie:param limit integer  How many lines at most (default 2000)
// ollie:parallel read
// ollie:tier cold
// ollie:timeout 30
// ollie:cache path
import { readFile } from "node:fs/promises";
import { fileProblem, numberArg, pathArg, ToolError, tool } from "./lib/tool-io.js";

const LINE_LIMIT = 2000;

await tool(async (args) => {
  const path = pathArg(args);
  const offset = Math.max(1, numberArg(args, "offset", 1));
  const limit = Math.max(1, numberArg(args, "limit", 2000));
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    throw fileProblem(error, path);
  }
  if (data.subarray(0, 8192).includes(0))
    throw new ToolError(`${path} looks binary (it has NUL bytes); not shown`);
  const lines = data.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) return `(${path} is empty)`;
  if (offset > lines.length)
    throw new ToolError(`${path} has ${lines.length} lines; offset ${offset} is past the end`);
  const shown = lines.slice(offset - 1, offset - 1 + limit);
  const width = String(offset + shown.length - 1).length;
  const body = shown
    .map((line, i) => {
      const text =
        line.length > LINE_LIMIT
          ? `${line.slice(0, LINE_LIMIT)}… [${line.length - LINE_LIMIT} more characters]`
          : line;
      return `${String(offset + i).padStart(width)}\t${text}`;
    })
    .join("\n");
  const after = offset - 1 + shown.length;
  return after < lines.length
    ? `${body}\n[${lines.length - after} more lines: read on with offset ${after + 1}]`
    : body;
});
