// ollie:tool route
// ollie:description Choose the agent profile best suited to a request: a short-lived router agent (the router
// ollie:description profile, meant for a cheap, fast model) reads the profiles' descriptions and the request,
// ollie:description and names one. Answers the profile's name on the first line, its description on the second;
// ollie:description pass the name to subagent_spawn as its profile, or to cascade.
// ollie:schema {"type": "object", "properties": {
// ollie:schema   "prompt": {"type": "string", "description": "The request to find a profile for"},
// ollie:schema   "profiles": {"type": "array", "items": {"type": "string"},
// ollie:schema     "description": "The profiles to choose among (default: every configured one but router)"},
// ollie:schema   "backend": {"type": "string", "description": "The router's backend (default: its profile's)"},
// ollie:schema   "model": {"type": "string", "description": "The router's model (default: its profile's)"}},
// ollie:schema "required": ["prompt"]}
// ollie:parallel read
// ollie:timeout 90
import {
  endedIfStopped,
  killSession,
  promptSession,
  specOf,
  startSession,
  turnResult,
} from "./lib/child-session.js";
import { withNamespace } from "./lib/ollie-namespace.js";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

/** How long the router has to answer: it is meant to be a quick model, answering one word. */
const ROUTER_SECONDS = 60;

interface Candidate {
  name: string;
  description: string;
}

/** The `profiles` file's lines (`NAME\tDESCRIPTION`), less broken ones, limited to `wanted` when given. */
function candidates(listing: string, wanted: unknown): Candidate[] {
  const all = listing
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      return { name: line.slice(0, tab), description: line.slice(tab + 1) };
    })
    .filter((c) => !c.description.startsWith("broken: "));
  if (wanted === undefined) return all.filter((c) => c.name !== "router");
  if (!Array.isArray(wanted) || wanted.length === 0) throw new ToolError("profiles must list profile names");
  return wanted.map((name) => {
    const found = all.find((c) => c.name === name);
    if (!found)
      throw new ToolError(
        `no usable profile '${String(name)}' (there are: ${all.map((c) => c.name).join(", ")})`,
      );
    return found;
  });
}

/** The candidate the router's answer names: the answer itself, else the first candidate it mentions. */
function chosen(answer: string, list: readonly Candidate[]): Candidate | undefined {
  const word = answer
    .trim()
    .split("\n")[0]!
    .replace(/^[\s"'`*]+|[\s"'`*.]+$/g, "");
  return (
    list.find((c) => c.name === word) ??
    list
      .map((c) => ({
        c,
        at: answer.search(new RegExp(`(^|[^\\w.-])${c.name.replace(/[.]/g, "\\.")}($|[^\\w-])`)),
      }))
      .filter((x) => x.at >= 0)
      .sort((a, b) => a.at - b.at)[0]?.c
  );
}

await tool(async (args) => {
  const request = stringArg(args, "prompt", true);
  if (request.trim() === "") throw new ToolError("prompt is empty: give the request to route");
  return withNamespace(async (fsys) => {
    const list = candidates((await fsys.readFile("profiles")).toString("utf8"), args.profiles);
    if (list.length === 1) return `${list[0]!.name}\n${list[0]!.description}`;
    if (list.length === 0) throw new ToolError("there is no profile to choose among");
    const id = await startSession(
      fsys,
      specOf({
        agent: "router",
        backend: stringArg(args, "backend"),
        model: stringArg(args, "model"),
        cwd: process.cwd(),
        name: "route",
        callback: "no",
      }),
      "the router",
    );
    try {
      const question = [
        "Profiles:",
        ...list.map((c) => `${c.name}: ${c.description}`),
        "",
        "Request:",
        request,
        "",
        "Answer with the profile's name only.",
      ].join("\n");
      const result = await endedIfStopped(fsys, [id], async () => {
        const n = await promptSession(fsys, id, question);
        const deadline = AbortSignal.timeout(ROUTER_SECONDS * 1000);
        return turnResult(fsys, id, n, deadline).catch((error: unknown) => {
          throw new ToolError(
            deadline.aborted
              ? `the router did not answer within ${ROUTER_SECONDS} s`
              : `the router's answer could not be read: ${(error as Error).message}`,
          );
        });
      });
      if (result.outcome !== "done") throw new ToolError(`the router's turn ended ${result.outcome}`);
      const pick = chosen(result.reply, list);
      if (!pick)
        throw new ToolError(
          `the router answered '${result.reply.trim().slice(0, 200)}', which names none of: ${list.map((c) => c.name).join(", ")}`,
        );
      return `${pick.name}\n${pick.description}`;
    } finally {
      await killSession(fsys, id);
    }
  });
});
