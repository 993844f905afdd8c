// ollie:tool cascade
// ollie:description Ask several agents the same thing at once and get all their answers back together: one
// ollie:description new session per agent (another profile, backend or model each), all prompted with the
// ollie:description same text, waited for up to a deadline, then ended (unless kept). The answers come back in order, each
// ollie:description under a heading naming the agent and how its turn ended; compare and merge them yourself.
// ollie:schema {"type": "object", "properties": {
// ollie:schema   "prompt": {"type": "string", "description": "What every agent is asked; they see nothing else"},
// ollie:schema   "agents": {"type": "array", "minItems": 1, "maxItems": 8, "description": "The agents to ask",
// ollie:schema     "items": {"type": "object", "additionalProperties": false, "properties": {
// ollie:schema       "profile": {"type": "string", "description": "Agent profile (default: default)"},
// ollie:schema       "backend": {"type": "string", "description": "Backend (default: the profile's)"},
// ollie:schema       "model": {"type": "string", "description": "Model (default: the profile's)"}}}},
// ollie:schema   "timeout": {"type": "integer", "minimum": 1, "maximum": 840,
// ollie:schema     "description": "Seconds to wait for the answers (default 300); later ones are cut off"},
// ollie:schema   "keep": {"type": "boolean",
// ollie:schema     "description": "Keep the sessions afterwards, to prompt them again or read their chat"}},
// ollie:schema "required": ["prompt", "agents"]}
// ollie:timeout 900
import type { Fsys } from "@ollie/ninep";
import {
  endedIfStopped,
  killSession,
  promptSession,
  specOf,
  startSession,
  type TurnResult,
  turnResult,
} from "./lib/child-session.js";
import { withNamespace } from "./lib/ollie-namespace.js";
import { numberArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

interface Choice {
  profile?: string;
  backend?: string;
  model?: string;
}

/** Each answer is cut to this many characters, so N answers fit the caller's context. */
const ANSWER_CHARS = 12_000;

const label = (c: Choice, i: number) =>
  `${i + 1}. ${c.profile || "default"}${c.backend ? ` on ${c.backend}` : ""}${c.model ? ` (${c.model})` : ""}`;

function choices(args: Record<string, unknown>): Choice[] {
  const agents = args.agents;
  if (!Array.isArray(agents) || agents.length === 0)
    throw new ToolError("agents must name at least one agent");
  return agents.map((a, i) => {
    if (typeof a !== "object" || a === null) throw new ToolError(`agents[${i}] must be an object`);
    const entry = a as Record<string, unknown>;
    return specOf({
      profile: stringArg(entry, "profile"),
      backend: stringArg(entry, "backend"),
      model: stringArg(entry, "model"),
    }) as Choice;
  });
}

/** One agent's part: its session made, prompted and waited for; every failure is its answer, not the call's. */
async function ask(
  fsys: Fsys,
  choice: Choice,
  index: number,
  prompt: string,
  started: string[],
  deadline: AbortSignal,
): Promise<TurnResult & { session?: string }> {
  let session: string | undefined;
  try {
    session = await startSession(
      fsys,
      specOf({
        agent: choice.profile || "default",
        backend: choice.backend,
        model: choice.model,
        cwd: process.cwd(),
        name: `cascade-${index + 1}-${choice.profile || "default"}`,
        callback: "no",
      }),
      "the agent",
    );
    started.push(session);
    const n = await promptSession(fsys, session, prompt);
    return { ...(await turnResult(fsys, session, n, deadline)), session };
  } catch (error) {
    const outcome = deadline.aborted ? "timed out" : `error: ${(error as Error).message}`;
    return { outcome, reply: "", ...(session && { session }) };
  }
}

function report(
  list: Choice[],
  results: (TurnResult & { session?: string })[],
  seconds: number,
  keep: boolean,
): string {
  const answered = results.filter((r) => r.outcome === "done").length;
  const lines = [`${answered} of ${list.length} agents answered (deadline ${seconds} s).`];
  results.forEach((r, i) => {
    const choice = list[i] as Choice;
    const where = keep && r.session ? ` [session ${r.session}]` : "";
    lines.push("", `## ${label(choice, i)}: ${r.outcome}${where}`);
    const reply = r.reply.trim();
    if (reply === "") lines.push("(no answer)");
    else if (reply.length <= ANSWER_CHARS) lines.push(reply);
    else lines.push(reply.slice(0, ANSWER_CHARS), `[cut: ${reply.length - ANSWER_CHARS} more characters]`);
  });
  return lines.join("\n");
}

await tool(async (args) => {
  const prompt = stringArg(args, "prompt", true);
  if (prompt.trim() === "") throw new ToolError("prompt is empty: say what the agents should answer");
  const list = choices(args);
  const seconds = numberArg(args, "timeout", 300);
  const keep = args.keep === true;
  return withNamespace(async (fsys) => {
    const started: string[] = [];
    const deadline = AbortSignal.timeout(seconds * 1000);
    try {
      const results = await endedIfStopped(fsys, started, () =>
        Promise.all(list.map((c, i) => ask(fsys, c, i, prompt, started, deadline))),
      );
      return report(list, results, seconds, keep);
    } finally {
      if (!keep) await Promise.all(started.map((id) => killSession(fsys, id)));
    }
  });
});
