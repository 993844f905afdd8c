import { type MockReply, ScriptedBackend, type ScriptedCall } from "@ollie/backends/testing";
import { Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/agent-options.js";
import type { AgentEvent, AgentState } from "../events/agent-events.js";
import type { TurnOutcome, TurnStatus } from "../events/turn-outcome.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import { type FunctionTool, ToolSet } from "../tools/tool-set.js";

/**
 * An agent over a ScriptedBackend playing `replies`, with every event it emits recorded; with `restore`, one
 * that carries on that saved session.
 */
export async function scriptedAgent(
  replies: MockReply[] | ((call: ScriptedCall) => MockReply),
  options: Partial<AgentOptions> & { tools?: ToolSet; restore?: PersistedSession } = {},
) {
  const backend = new ScriptedBackend({ replies });
  const { restore, ...rest } = options;
  const agentOptions = { backend, prompt: "You are a test agent.", ...rest };
  const agent = restore ? await Agent.resume(restore, agentOptions) : await Agent.create(agentOptions);
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return { agent, backend, events, of: <T extends AgentEvent["type"]>(type: T) => only(events, type) };
}

export function only<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The outcome as one of `status`, to read what that ending carries; throws when the turn ended otherwise. */
export function ended<S extends TurnStatus>(
  outcome: TurnOutcome,
  status: S,
): Extract<TurnOutcome, { status: S }> {
  if (outcome.status !== status) throw new Error(`the turn ended ${outcome.status}, not ${status}`);
  return outcome as Extract<TurnOutcome, { status: S }>;
}

/** A tool that echoes its arguments, optionally read-safe. */
export function echoTool(name: string, extra: Partial<FunctionTool> = {}): FunctionTool {
  return {
    name,
    description: `${name} things`,
    parameters: { type: "object", properties: { path: { type: "string" } } },
    run: (args) => `${name} ${JSON.stringify(args)}`,
    ...extra,
  };
}

export const tools = (...list: FunctionTool[]) => new ToolSet(list);

/** A reply that calls one tool. */
export const call = (name: string, args: Record<string, unknown> = {}, text = ""): MockReply => ({
  text,
  toolCalls: [{ name, arguments: args }],
});

/** Resolves once the agent's state is `state`. */
export async function untilState(agent: Agent, state: AgentState): Promise<void> {
  let now = agent.state;
  while (now !== state) now = await agent.waitChange("state", now);
}

/** An agent whose first reply calls `wait`, which holds the turn until `release()`; then it answers. */
export async function heldTurn() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const set = tools(
    echoTool("wait", {
      run: async () => {
        await gate;
        return "waited";
      },
    }),
  );
  const held = await scriptedAgent([call("wait"), { text: "noted" }], { tools: set });
  const turn = held.agent.submit("go");
  await untilState(held.agent, "calling: wait");
  return { ...held, turn, release };
}

/** How long a test waits for something to happen before it fails: generous, since machines are busy. */
export const WAIT = { timeout: 10_000, interval: 10 };
