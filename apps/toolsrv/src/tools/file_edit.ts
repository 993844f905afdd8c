// ollie:tool file_edit
// ollie:description Replace an exact piece of text in a file. old_string must occur exactly once (include
// ollie:description enough surrounding lines to make it unique), unless replace_all is true.
// ollie:param path string required  The file to edit
// ollie:param old_string string required  The text to replace, character for character
// ollie:param new_string string required  What to put in its place
// ollie:param replace_all boolean  Replace every occurrence (default false)
// ollie:timeout 30
import { readFile, writeFile } from "node:fs/promises";
import { fileProblem, pathArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const path = pathArg(args);
  const oldText = stringArg(args, "old_string", true);
  const newText = stringArg(args, "new_string", true);
  const all = args.replace_all === true;
  if (oldText === "")
    throw new ToolError("old_string is empty: say what to replace (use file_write to write a whole file)");
  if (oldText === newText)
    throw new ToolError("old_string and new_string are the same: nothing would change");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw fileProblem(error, path);
  }
  const count = text.split(oldText).length - 1;
  if (count === 0)
    throw new ToolError(`old_string was not found in ${path} (it must match exactly, whitespace included)`);
  if (count > 1 && !all) {
    throw new ToolError(
      `old_string occurs ${count} times in ${path}: add surrounding lines to make it unique, or set replace_all`,
    );
  }
  const result = all ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
  try {
    await writeFile(path, result);
  } catch (error) {
    throw fileProblem(error, path);
  }
  return `replaced ${count} occurrence${count === 1 ? "" : "s"} in ${path}`;
});
