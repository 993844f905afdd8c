import { describeIssues, formatProblems } from "@ollie/config-file";
import { z } from "zod";
import type { TaskState } from "../history/task-state.js";

export const COMPACTION_INSTRUCTIONS = `You compress the earlier part of an agent's conversation so the agent can carry on without it.
Read the transcript and the current task state, then answer with one JSON object and nothing else:
{
  "objective": "what the user wants, in one or two sentences",
  "planStep": "the step being worked on now",
  "constraints": ["rules and preferences the user stated that must still be followed"],
  "lastAction": "the last thing done and what came of it",
  "nextDecision": "what the agent meant to do next",
  "decisions": ["up to 10 one-line entries: decisions made and facts found, oldest first"]
}
Keep file paths, names, numbers and error messages exact. Leave out what no longer matters.`;

const summarySchema = z.object({
  objective: z.string(),
  planStep: z.string().optional(),
  constraints: z.array(z.string()).default([]),
  lastAction: z.string().optional(),
  nextDecision: z.string().optional(),
  decisions: z.array(z.string()).default([]),
});

export type CompactionSummary = { taskState: TaskState; decisions: string[] };

/** A summary reply the loop cannot use. The history is left as it was. */
export class CompactionSummaryError extends Error {
  override readonly name = "CompactionSummaryError";
  constructor(
    readonly problem: string,
    readonly reply: string,
  ) {
    super(`the compaction summary is unusable: ${problem}`);
  }
}

/** Reads the model's summary: the JSON object in its reply (code fences and chatter around it allowed). */
export function parseSummary(reply: string, warmEntries: number): CompactionSummary {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start < 0 || end < start)
    throw new CompactionSummaryError("there is no JSON object in the reply", reply);
  let json: unknown;
  try {
    json = JSON.parse(reply.slice(start, end + 1));
  } catch (error) {
    throw new CompactionSummaryError(`the JSON does not parse: ${(error as Error).message}`, reply);
  }
  const parsed = summarySchema.safeParse(json);
  if (!parsed.success) {
    throw new CompactionSummaryError(
      formatProblems(undefined, describeIssues(summarySchema, parsed.error.issues)),
      reply,
    );
  }
  const { decisions, ...state } = parsed.data;
  const taskState: TaskState = { objective: state.objective, constraints: state.constraints };
  if (state.planStep) taskState.planStep = state.planStep;
  if (state.lastAction) taskState.lastAction = state.lastAction;
  if (state.nextDecision) taskState.nextDecision = state.nextDecision;
  return { taskState, decisions: decisions.slice(-warmEntries) };
}
