import { ReplyFormatError } from "../errors.js";

/**
 * What an agent is doing: nothing (`idle`), waiting for the model (`thinking`), running the tools named
 * (`calling: shell, file_read`), or — shown over those while it runs — a hook (`hook: preTurn`), a compaction
 * (`compacting`) or its prompt commands (`prompt commands`). What its `state` and `statewait` files say; only
 * `idle` means nothing runs.
 */
export type AgentState =
  | "idle"
  | "thinking"
  | `calling: ${string}`
  | `hook: ${string}`
  | "compacting"
  | "prompt commands";

const PLAIN = new Set(["idle", "thinking", "compacting", "prompt commands"]);

/** An agent's state from its file's text. */
export function parseState(text: string, path: string): AgentState {
  const state = text.trim();
  if (PLAIN.has(state) || /^(calling|hook): \S/.test(state)) return state as AgentState;
  throw new ReplyFormatError(path, text, "not an agent state");
}

/** The tools an agent runs, from its state: none unless it is `calling: TOOLS`. */
export function callingTools(state: AgentState): string[] {
  return state.startsWith("calling: ") ? state.slice("calling: ".length).split(", ") : [];
}
