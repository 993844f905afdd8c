import { ReplyFormatError } from "../errors.js";

/**
 * How a turn ended: `done` (the model answered), `interrupted` (stopped), `maxsteps` (the step limit),
 * `blocked` (a preTurn hook refused it), `handled` (a turnError hook took a failure over), `budget` (a
 * budget refused its next model request) or `error`.
 */
export type TurnStatus = "done" | "interrupted" | "maxsteps" | "blocked" | "handled" | "budget" | "error";

const STATUSES: readonly string[] = ["done", "interrupted", "maxsteps", "blocked", "handled", "budget"];

/** A turn's outcome, as the `outcome` file and the first line of `prompts/N` say it. */
export interface Outcome {
  status: TurnStatus;
  /** What went wrong, for `error`. */
  error?: string;
  /** The words of the file: the status, or `error: MESSAGE`. */
  text: string;
}

/** How a prompt's turn ended and what the model last said in it (`prompts/N`). */
export interface TurnEnd {
  outcome: Outcome;
  /** The model's last complete reply of the turn ("" when it gave none). */
  reply: string;
}

export function parseOutcome(line: string, path: string): Outcome {
  if (STATUSES.includes(line)) return { status: line as TurnStatus, text: line };
  if (line.startsWith("error: ")) return { status: "error", error: line.slice("error: ".length), text: line };
  throw new ReplyFormatError(path, line, "not a turn's outcome");
}

/** `prompts/N`: the outcome on the first line, then the reply (which olliesrv ends with a newline). */
export function parseTurnEnd(text: string, path: string): TurnEnd {
  const newline = text.indexOf("\n");
  if (newline < 0) throw new ReplyFormatError(path, text, "not a prompt's result");
  const reply = text.slice(newline + 1);
  return {
    outcome: parseOutcome(text.slice(0, newline), path),
    reply: reply.endsWith("\n") ? reply.slice(0, -1) : reply,
  };
}
