import { ReplyFormatError } from "../errors.js";

/**
 * What an agent is doing: waiting, waiting for the model, or running the tools named (`calling: shell,
 * file_read`). What its `state` and `statewait` files say.
 */
export type AgentState = "idle" | "thinking" | `calling: ${string}`;

/** An agent's state from its file's text. */
export function parseState(text: string, path: string): AgentState {
  const state = text.trim();
  if (state === "idle" || state === "thinking" || state.startsWith("calling: ")) return state as AgentState;
  throw new ReplyFormatError(path, text, "not an agent state");
}

/** The tools an agent runs, from its state: none unless it is `calling: TOOLS`. */
export function callingTools(state: AgentState): string[] {
  return state.startsWith("calling: ") ? state.slice("calling: ".length).split(", ") : [];
}
