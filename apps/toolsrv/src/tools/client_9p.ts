// ollie:tool client_9p
// ollie:description Use the Ollie namespace as this agent: read a file, write one, or list a directory
// ollie:description (sessions, prompts of other agents, plans). Paths are inside the namespace, e.g.
// ollie:description session/idx.
// ollie:param op string required  read, write or ls
// ollie:param path string required  The path in the namespace
// ollie:param data string  What to write (for write)
// ollie:timeout 60
import { withNamespace } from "./lib/ollie-namespace.js";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const op = stringArg(args, "op", true);
  const path = stringArg(args, "path", true);
  return withNamespace(async (fsys) => {
    try {
      switch (op) {
        case "read":
          return (await fsys.readFile(path)).toString("utf8");
        case "write": {
          const data = stringArg(args, "data", true);
          await fsys.writeFile(path, data);
          return `wrote ${Buffer.byteLength(data)} bytes to ${path}`;
        }
        case "ls": {
          const entries = await fsys.readdir(path);
          return entries.map((e) => `${e.name}${e.qid.type & 0x80 ? "/" : ""}`).join("\n") || "(empty)";
        }
        default:
          throw new ToolError(`op must be read, write or ls, not '${op}'`);
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`${op} ${path}: ${(error as Error).message}`);
    }
  });
});
