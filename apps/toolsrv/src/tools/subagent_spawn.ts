// ollie:tool subagent_spawn
// ollie:description Start a child agent in a new session, working in this directory, and give it a task.
// ollie:description Its result arrives later as a new prompt beginning [from=CHILD_UNAME], with the lines
// ollie:description STATUS: done|error, SUMMARY: and ARTIFACTS:. Do not poll or wait for it: go on with
// ollie:description other work, or end your turn.
// ollie:param task string required  Everything the child needs to know: it does not see this conversation
// ollie:param profile string  The child's agent profile (default coding)
// ollie:param name string  A name for the child's session
// ollie:param backend string  The child's backend (default: its profile's)
// ollie:param model string  The child's model (default: its profile's)
// ollie:timeout 60
import { ORDWR } from "@ollie/ninep";
import { withNamespace } from "./lib/ollie-namespace.js";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const task = stringArg(args, "task", true);
  if (task.trim() === "") throw new ToolError("task is empty: say what the child should do");
  const spec: Record<string, string> = { agent: stringArg(args, "profile") || "coding", cwd: process.cwd() };
  // Left out when not given, so the profile's own choices hold (olliesrv refuses empty values).
  for (const key of ["name", "backend", "model"]) {
    const value = stringArg(args, key);
    if (value) spec[key] = value;
  }
  return withNamespace(async (fsys) => {
    // session/new is a clone file: the id of the session a spec created is read back on the same fid.
    const id = await fsys
      .withFile("session/new", ORDWR, async (f) => {
        await f.write(JSON.stringify(spec));
        return (await f.read(0)).toString("utf8").trim();
      })
      .catch((error: unknown) => {
        throw new ToolError(`cannot start the child: ${(error as Error).message}`);
      });
    await fsys.writeFile(`session/${id}/agent/main/prompt`, task).catch((error: unknown) => {
      throw new ToolError(`session ${id} was started, but the task was refused: ${(error as Error).message}`);
    });
    return `spawned session ${id} (agent ${id}.main) with the task; its result will arrive as a prompt starting [from=${id}.main]. Do not poll for it.`;
  });
});
