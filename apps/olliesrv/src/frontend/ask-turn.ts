import type { Agent, ChatKind, TurnEnd } from "@ollie/client";

/** What to do while a prompt's turn is followed. */
export interface AskOptions {
  /** Stops the following (the turn goes on at the daemon): the ask then rejects with its reason. */
  signal?: AbortSignal;
  /** Told the prompt's number once the agent has taken it: from then on there is a turn to stop. */
  submitted?: (prompt: number) => void;
}

/**
 * Prompts `agent` and hands its chat to `show` as it streams, each piece with its line's kind — from the prompt to that prompt's turn's end,
 * not one queued before it — and resolves with how the turn ended and its last reply. What `ollie ask`,
 * `ollie sh` and ollie_prompt do with a prompt.
 */
export async function askTurn(
  agent: Agent,
  text: string,
  show: (text: string, kind: ChatKind) => void,
  options: AskOptions = {},
): Promise<TurnEnd> {
  const { signal } = options;
  const prompt = await agent.prompt(text, signal ? { signal } : {});
  options.submitted?.(prompt.number);
  for await (const piece of prompt.chat()) show(piece.text, piece.kind);
  return prompt.ended;
}

/** Whether a turn that ended so failed at its task: every ending but `done` and `handled` (by a hook). */
export function turnFailed(end: TurnEnd): boolean {
  return end.outcome.status !== "done" && end.outcome.status !== "handled";
}
