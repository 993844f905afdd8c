// ollie:tool subagent_generate
// ollie:description Write an agent profile for a narrow task and start a child agent that runs it, with
// ollie:description the task. The profile (its instructions, tools and model) is kept in this session as
// ollie:description agents/NAME.json, so later spawns can name it as their profile. Its instructions are
// ollie:description taken as they are: nothing in them is run or expanded. Its result arrives later as a
// ollie:description prompt beginning [from=CHILD_UNAME] with STATUS:, SUMMARY: and ARTIFACTS: lines; do not poll.
// ollie:schema {"type": "object", "properties": {
// ollie:schema   "name": {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,63}$",
// ollie:schema     "description": "The profile's name; not one of the configured profiles"},
// ollie:schema   "prompt": {"type": "string", "description": "The agent's instructions: its role, how to work, what to answer"},
// ollie:schema   "tools": {"type": "array", "items": {"type": "string"},
// ollie:schema     "description": "The only tools it may use (loaded from its start); default: the ones you may"},
// ollie:schema   "description": {"type": "string", "description": "One line on what the profile is for"},
// ollie:schema   "backend": {"type": "string", "description": "Its backend (default: the configured default)"},
// ollie:schema   "model": {"type": "string", "description": "Its model (default: the backend's)"},
// ollie:schema   "max_steps": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Its step limit per turn"},
// ollie:schema   "task": {"type": "string", "description": "The first task: everything the child needs, as it sees nothing else"}},
// ollie:schema "required": ["name", "prompt", "task"]}
// ollie:timeout 60
import { giveTask, specOf, startSession } from "./lib/child-session.js";
import { withNamespace } from "./lib/ollie-namespace.js";
import { numberArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

await tool(async (args) => {
  const name = stringArg(args, "name", true);
  const task = stringArg(args, "task", true);
  if (task.trim() === "") throw new ToolError("task is empty: say what the child should do");
  const tools = args.tools;
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === "string")))
    throw new ToolError("tools must be a list of tool names");
  const steps = numberArg(args, "max_steps", 0);
  const profile = {
    ...specOf({
      description: stringArg(args, "description"),
      backend: stringArg(args, "backend"),
      model: stringArg(args, "model"),
    }),
    prompt: stringArg(args, "prompt", true),
    ...(tools !== undefined && { tools, autoLoad: tools }),
    ...(steps > 0 && { maxSteps: steps }),
  };
  const own = (process.env.OLLIE_UNAME ?? "").split(".")[0];
  if (!own) throw new ToolError("OLLIE_UNAME is not set: toolsrv did not say which session this is");
  const file = `session/${own}/agents/${name}.json`;
  return withNamespace(async (fsys) => {
    await fsys.writeFile(file, JSON.stringify(profile)).catch((error: unknown) => {
      throw new ToolError(`the profile was refused: ${(error as Error).message}`);
    });
    const id = await startSession(fsys, { agent: name, cwd: process.cwd(), name }, "the child");
    await giveTask(fsys, id, task);
    return `wrote the profile ${file} and spawned session ${id} (agent ${id}.main) running it with the task; its result will arrive as a prompt starting [from=${id}.main]. Do not poll for it.`;
  });
});
