import { isoTime, keyValues } from "./key-values.js";

/** What an agent is doing now, in more detail than its state (its `activity` file). */
export interface AgentActivity {
  /** The state's word: a `hook` runs, or `compacting`, `prompt commands` (see AgentState). */
  state: "idle" | "thinking" | "calling" | "hook" | "compacting" | "prompt commands";
  /** The tools running, or the hook's event while a hook runs; empty otherwise. */
  tools: string[];
  /** The first argument of the first running tool, on one line, at most 120 characters ("" when none). */
  arg: string;
  /** When the state began. */
  since: Date | undefined;
  /** When the running turn began (undefined when idle). */
  turnStarted: Date | undefined;
}

const STATES: readonly AgentActivity["state"][] = [
  "idle",
  "thinking",
  "calling",
  "hook",
  "compacting",
  "prompt commands",
];

export function parseActivity(text: string): AgentActivity {
  const kv = keyValues(text);
  const state = STATES.find((s) => s === kv.state) ?? "idle";
  return {
    state,
    tools: kv.tool ? kv.tool.split(",") : [],
    arg: kv.arg ?? "",
    since: isoTime(kv.since),
    turnStarted: isoTime(kv.turn_started),
  };
}
