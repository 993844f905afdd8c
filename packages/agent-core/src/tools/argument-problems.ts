import type { StandardSchemaV1 } from "./standard-schema.js";

/**
 * How a call's wrong arguments are put to the model, whichever check found them (Ajv against a JSON Schema,
 * or a tool's own Standard Schema): the same sentence, so a model learns one shape of refusal.
 */

/** At most this many problems are named: the first few are what a model fixes first. */
const MAX_PROBLEMS = 5;

/** The problems, each once, the first few of them, and how many more there were. */
export function listProblems(problems: readonly string[]): string {
  const shown = [...new Set(problems)].slice(0, MAX_PROBLEMS);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
  return `${shown.join("; ")}${more}`;
}

/** The result text of a call that was not run because its arguments do not fit. */
export const argumentsRefused = (tool: string, problems: string): string =>
  `${tool} was not run: its arguments do not fit its schema: ${problems}. Call it again with arguments that do.`;

/** Where an issue is, as a model reads a field: `items.0.name`, or the arguments as a whole. */
function issuePlace(issue: StandardSchemaV1.Issue): string {
  const keys = (issue.path ?? []).map((segment) =>
    String(typeof segment === "object" && segment !== null ? segment.key : segment),
  );
  return keys.length === 0 ? "the arguments" : keys.join(".");
}

/** A Standard Schema's issues, in the words the schema gave them, each with the field it is about. */
export const issueProblems = (issues: ReadonlyArray<StandardSchemaV1.Issue>): string =>
  listProblems(issues.map((issue) => `${issuePlace(issue)}: ${issue.message}`));
