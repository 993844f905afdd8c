// ollie:tool bypass_request
// ollie:description Ask the person running Ollie to let a command run outside the sandbox, as one of the
// ollie:description operations their bypass policy offers (the tool says which when the name is wrong).
// ollie:description Use it only when the sandbox stops something the task needs. It waits until they decide
// ollie:description (ollie approve ID or ollie deny ID), then for the command, and returns the decision, the
// ollie:description exit status and the output. A denial is final: do not ask again for the same thing.
// ollie:param operation string required  The operation's name in the bypass policy
// ollie:param reason string required  Why the task needs it: the person deciding reads this
// ollie:param command string[]  The whole command, starting with the operation's own (default: just that)
// ollie:timeout 3600
import type { Fsys } from "@ollie/ninep";
import { ORDWR } from "@ollie/ninep";
import { withNamespace } from "./lib/ollie-namespace.js";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

/** The most output handed to the model: the end of it, where the errors are. */
const MAX_OUTPUT = 64 * 1024;

await tool(async (args) => {
  const operation = stringArg(args, "operation", true).trim();
  const reason = stringArg(args, "reason", true).trim();
  if (operation === "") throw new ToolError("operation is empty: name one of the bypass policy's operations");
  if (reason === "") throw new ToolError("reason is empty: say why the task needs this");
  const command = args.command;
  if (command !== undefined && (!Array.isArray(command) || !command.every((w) => typeof w === "string")))
    throw new ToolError('command must be a list of words, e.g. ["apt-get", "install", "-y", "ripgrep"]');
  return withNamespace(async (fsys) => {
    const offered = await text(fsys, "bypass/operations");
    const ops = offered
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split("\t"));
    const op = ops.find(([name]) => name === operation);
    if (!op) {
      const list = ops.map(([name, , , cmd]) => `${name} (${cmd})`).join(", ");
      throw new ToolError(
        ops.length === 0
          ? "the bypass policy offers no operations: nothing may run outside the sandbox here"
          : `the bypass policy has no operation '${operation}'; it offers: ${list}`,
      );
    }
    const request = { operation, reason, ...(command !== undefined && { argv: command }) };
    const id = await fsys
      .withFile("bypass/new", ORDWR, async (f) => {
        await f.write(JSON.stringify(request));
        return (await f.read(0)).toString("utf8").trim();
      })
      .catch((error: unknown) => {
        throw new ToolError(`the request was refused: ${(error as Error).message}`);
      });
    const dir = `bypass/${id}`;
    const about = `bypass request ${id} (${operation}: ${(command as string[] | undefined)?.join(" ") ?? op[3]})`;
    const decision = await settled(fsys, `${dir}/decision`, `${dir}/decisionwait`, ["pending"]);
    if (decision.startsWith("denied"))
      return `${about}: ${decision}\nIt did not run. Do not ask again for the same thing; go on without it, or tell the user what is blocked.`;
    // The output ends when the command does.
    let output = (await fsys.readFile(`${dir}/output`)).toString("utf8");
    const status = await settled(fsys, `${dir}/status`, `${dir}/statuswait`, ["pending", "running"]);
    if (output.length > MAX_OUTPUT) output = `…${output.slice(-MAX_OUTPUT)}`;
    const report = `${about}: ${decision}; ${status}\n${output ? `output:\n${output.trimEnd()}` : "(no output)"}`;
    if (status !== "exited 0") throw new ToolError(report);
    return report;
  });
});

async function text(fsys: Fsys, path: string): Promise<string> {
  return (await fsys.readFile(path)).toString("utf8");
}

/** The value of `path` once it is none of `waiting`, waiting on `waitPath` (opened first, so no change is lost). */
async function settled(fsys: Fsys, path: string, waitPath: string, waiting: string[]): Promise<string> {
  const wait = await fsys.open(waitPath);
  try {
    let value = (await text(fsys, path)).trim();
    while (waiting.includes(value)) value = (await wait.readAll()).toString("utf8").trim();
    return value;
  } finally {
    await wait.close().catch(() => {});
  }
}
