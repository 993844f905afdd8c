import type { Backend } from "../backend.js";
import type { MockFault } from "../testing/mock-reply.js";
import type { MockLlmServer, MockProvider } from "../testing/mock-server.js";
import type { Message, StreamEvent, Tool } from "../types.js";

export const weatherTool: Tool = {
  name: "get_weather",
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

export const conversation: Message[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Weather in Paris and Tokyo?" },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { id: "call_A1", name: "get_weather", arguments: { city: "Paris" } },
      { id: "call_B2", name: "get_weather", arguments: { city: "Tokyo" } },
    ],
  },
  { role: "tool", toolCallId: "call_A1", name: "get_weather", content: "18C cloudy" },
  { role: "tool", toolCallId: "call_B2", name: "get_weather", content: "24C sunny" },
];

export async function collect(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return summarize(events);
}

/** A reply's events, and what they add up to: text, reasoning, calls, the last usage, the done event. */
export function summarize(events: StreamEvent[]) {
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error(`the stream did not end with done: ${JSON.stringify(done)}`);
  return {
    events,
    done,
    text: events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join(""),
    reasoning: events.flatMap((e) => (e.type === "reasoning" ? [e.delta] : [])).join(""),
    calls: events.flatMap((e) => (e.type === "tool_call" ? [e.call] : [])),
    usage: events.flatMap((e) => (e.type === "usage" ? [e.usage] : [])).at(-1),
  };
}

export interface SuiteOptions {
  provider: MockProvider;
  /** What the test names say, when one provider runs the suite more than once (one per API it speaks). */
  label?: string;
  make: (server: MockLlmServer) => Backend;
  /** Whether the provider streams SSE (else NDJSON). */
  sse: boolean;
  /** Tool-call ids the provider sends (Gemini ≤2.5 sends none: they are made up). */
  sendsIds?: boolean;
  /** The Retry-After, in seconds, its rate-limit fault is rendered with. */
  retryAfter: number;
  /**
   * Whether the provider renews its credential and tries once more when a request is refused (Copilot,
   * Kiro): the suite's refusal then comes twice, and the second one is final.
   */
  renewsCredential?: boolean;
  /**
   * What the provider's stream says of a reply, as the mock renders it: the model that served it, and the
   * reply's id (none: the wire has no such field).
   */
  identifies: { model: boolean; id?: string };
  /** Faults this provider has no form of (Anthropic has no "tools unsupported" error). */
  without?: Array<MockFault["type"]>;
}
