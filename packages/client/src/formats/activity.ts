import { isoTime, keyValues } from "./key-values.js";

/** What an agent is doing now, in more detail than its state (its `activity` file). */
export interface AgentActivity {
  state: "idle" | "thinking" | "calling";
  /** The tools running; empty unless calling. */
  tools: string[];
  /** The first argument of the first running tool, on one line, at most 120 characters ("" when none). */
  arg: string;
  /** When the state began. */
  since: Date | undefined;
  /** When the running turn began (undefined when idle). */
  turnStarted: Date | undefined;
}

export function parseActivity(text: string): AgentActivity {
  const kv = keyValues(text);
  const state = kv.state === "thinking" || kv.state === "calling" ? kv.state : "idle";
  return {
    state,
    tools: kv.tool ? kv.tool.split(",") : [],
    arg: kv.arg ?? "",
    since: isoTime(kv.since),
    turnStarted: isoTime(kv.turn_started),
  };
}
