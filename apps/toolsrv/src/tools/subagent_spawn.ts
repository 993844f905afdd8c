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
import { giveTask, specOf, startSession } from "./lib/child-session.js";
import { withNamespace } from "./lib/ollie-namespace.js";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const task = stringArg(args, "task", true);
  if (task.trim() === "") throw new ToolError("task is empty: say what the child should do");
  const spec = specOf({
    agent: stringArg(args, "profile") || "coding",
    cwd: process.cwd(),
    name: stringArg(args, "name"),
    backend: stringArg(args, "backend"),
    model: stringArg(args, "model"),
  });
  return withNamespace(async (fsys) => {
    const id = await startSession(fsys, spec, "the child");
    await giveTask(fsys, id, task);
    return `spawned session ${id} (agent ${id}.main) with the task; its result will arrive as a prompt starting [from=${id}.main]. Do not poll for it.`;
  });
});
