import { describe, expect, it } from "vitest";
import { weatherTool } from "../../__fixtures__/conversation.js";
import { kiroExampleBody } from "../../testing/kiro/kiro-fixtures.js";
import type { Message, Tool } from "../../types.js";
import { kiroRequestBody } from "./kiro-request.js";

const ARN = "arn:aws:codewhisperer:us-east-1:699475941385:profile/EHGA3GRVQMUK";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MODEL = "claude-sonnet-4.5";
const user = (content: string) => ({ userInputMessage: { content, modelId: MODEL, origin: "AI_EDITOR" } });
const ids = { conversationId: expect.stringMatching(UUID), agentContinuationId: expect.stringMatching(UUID) };

describe("kiro: request bodies", () => {
  it("the design document's example (B.4.2): system prompt on the first prompt, results with the next turn", () => {
    const bash: Tool = {
      name: "bash",
      description: "Run a shell command",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    };
    const messages: Message[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "List the files." },
      {
        role: "assistant",
        content: "I'll list them.",
        toolCalls: [{ id: "tooluse_Q1w2E3r4T5", name: "bash", arguments: { command: "ls" } }],
      },
      { role: "tool", toolCallId: "tooluse_Q1w2E3r4T5", name: "bash", content: "a.ts\nb.ts" },
    ];
    const { body, toolNames } = kiroRequestBody(MODEL, messages, [bash], {}, { profileArn: ARN });
    const example = kiroExampleBody() as { conversationState: Record<string, unknown> };
    expect(body).toEqual({ ...example, conversationState: { ...example.conversationState, ...ids } });
    expect(toolNames.size).toBe(0);
    // A new conversation each time: Kiro keeps nothing between requests.
    const again = kiroRequestBody(MODEL, messages, [bash], {}).body as typeof example;
    expect(again.conversationState.conversationId).not.toBe(
      (body as typeof example).conversationState.conversationId,
    );
    expect(again).not.toHaveProperty("profileArn");
  });

  it("a long conversation: thinking, reasoning replayed, results paired, orphans repaired, long names cut, placeholders", () => {
    const long = `mcp__a_very_long_server_name__${"and_an_even_longer_tool_name_".repeat(2)}x`;
    const longTool: Tool = { name: long, description: "d".repeat(10_050), parameters: { type: "object" } };
    const messages: Message[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris and Tokyo?" },
      {
        role: "assistant",
        content: "",
        reasoning: [{ text: "Two cities." }, { text: "", redacted: "opaque" }],
        toolCalls: [
          { id: "call_A1", name: "get_weather", arguments: { city: "Paris" } },
          { id: "call_B2", name: "get_weather", arguments: { city: "Tokyo" } },
        ],
      },
      { role: "tool", toolCallId: "call_A1", name: "get_weather", content: "18C cloudy" },
      { role: "user", content: "And Rome?" },
      { role: "user", content: "Use the long tool." },
      {
        role: "assistant",
        content: "Calling.",
        toolCalls: [
          { id: "call_L", name: long, arguments: {} },
          { id: "call_O", name: "Old_Tool", arguments: { x: 1 } },
        ],
      },
      { role: "tool", toolCallId: "call_gone", name: "get_weather", content: "orphan" },
      { role: "tool", toolCallId: "call_O", name: "Old_Tool", content: "old result", isError: true },
      { role: "tool", toolCallId: "call_L", name: long, content: "done" },
    ];
    const warnings: string[] = [];
    const { body, toolNames } = kiroRequestBody(
      MODEL,
      messages,
      [weatherTool, longTool, { ...weatherTool, name: "old_tool" }],
      { reasoningBudget: 2000, temperature: 0.2, stop: [] },
      {},
      (w) => warnings.push(w),
    );
    const [short] = [...toolNames.keys()];
    expect(short).toHaveLength(64);
    expect(short!.startsWith(long.slice(0, 55))).toBe(true);
    expect(toolNames.get(short!)).toBe(long);
    expect(body).toEqual({
      conversationState: {
        ...ids,
        agentTaskType: "vibe",
        chatTriggerType: "MANUAL",
        history: [
          user(
            "<thinking_mode>enabled</thinking_mode><max_thinking_length>2000</max_thinking_length>\n\nBe brief.\n\nWeather in Paris and Tokyo?",
          ),
          {
            assistantResponseMessage: {
              content: "<thinking>Two cities.</thinking>",
              toolUses: [
                { toolUseId: "call_A1", name: "get_weather", input: { city: "Paris" } },
                { toolUseId: "call_B2", name: "get_weather", input: { city: "Tokyo" } },
              ],
            },
          },
          {
            userInputMessage: {
              ...user("And Rome?\n\nUse the long tool.").userInputMessage,
              userInputMessageContext: {
                toolResults: [
                  { toolUseId: "call_A1", content: [{ text: "18C cloudy" }], status: "success" },
                  {
                    toolUseId: "call_B2",
                    content: [{ text: "No result was recorded for this call." }],
                    status: "error",
                  },
                ],
              },
            },
          },
          {
            assistantResponseMessage: {
              content: "Calling.",
              toolUses: [
                { toolUseId: "call_L", name: short, input: {} },
                { toolUseId: "call_O", name: "Old_Tool", input: { x: 1 } },
              ],
            },
          },
        ],
        currentMessage: {
          userInputMessage: {
            ...user("Tool results provided.").userInputMessage,
            userInputMessageContext: {
              toolResults: [
                { toolUseId: "call_L", content: [{ text: "done" }], status: "success" },
                { toolUseId: "call_O", content: [{ text: "old result" }], status: "error" },
              ],
              tools: [
                {
                  toolSpecification: {
                    name: "get_weather",
                    description: "Current weather",
                    inputSchema: { json: weatherTool.parameters },
                  },
                },
                {
                  toolSpecification: {
                    name: short,
                    description: "d".repeat(10_000),
                    inputSchema: { json: { type: "object" } },
                  },
                },
                // Kiro matches names without case: Old_Tool is old_tool, so it needs no placeholder.
                {
                  toolSpecification: {
                    name: "old_tool",
                    description: "Current weather",
                    inputSchema: { json: weatherTool.parameters },
                  },
                },
              ],
            },
          },
        },
      },
    });
    expect(warnings).toEqual([
      `tool ${long} is sent to Kiro as ${short}: its names may be 64 characters at most`,
      `the description of tool ${long} is cut to 10000 characters, Kiro's limit (it has 10050)`,
      "temperature is not sent: Kiro's API has no such setting",
    ]);
  });

  it("tools the history calls but the request does not offer get placeholders", () => {
    const messages: Message[] = [
      { role: "user", content: "Read it." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "t1", name: "read_file", arguments: { path: "a" } }],
      },
      { role: "tool", toolCallId: "t1", name: "read_file", content: "text" },
    ];
    const { body } = kiroRequestBody(MODEL, messages, [], {});
    const state = (
      body as {
        conversationState: {
          history: unknown[];
          currentMessage: { userInputMessage: { userInputMessageContext: { tools: unknown[] } } };
        };
      }
    ).conversationState;
    expect(state.history[1]).toEqual({
      // Kiro wants content in every message, even a reply that only called.
      assistantResponseMessage: {
        content: " ",
        toolUses: [{ toolUseId: "t1", name: "read_file", input: { path: "a" } }],
      },
    });
    expect(state.currentMessage.userInputMessage.userInputMessageContext.tools).toEqual([
      {
        toolSpecification: {
          name: "read_file",
          description: "Tool",
          inputSchema: { json: { type: "object", properties: {} } },
        },
      },
    ]);
  });

  it("turns alternate and start and end with the user's, whatever the history", () => {
    const messages: Message[] = [
      { role: "assistant", content: "Hello, how can I help?" },
      { role: "assistant", content: "Still here." },
      { role: "user", content: "   " },
      { role: "system", content: "Late system note." },
      { role: "assistant", content: "Go on?" },
    ];
    const { body } = kiroRequestBody(MODEL, messages, [], { reasoningEffort: "low" });
    expect(body).toEqual({
      conversationState: {
        ...ids,
        agentTaskType: "vibe",
        chatTriggerType: "MANUAL",
        history: [
          user(
            "<thinking_mode>enabled</thinking_mode><max_thinking_length>4096</max_thinking_length>\n\nLate system note.",
          ),
          { assistantResponseMessage: { content: "Hello, how can I help?\n\nStill here.\n\nGo on?" } },
        ],
        currentMessage: user("Continue."),
      },
    });
  });

  it("a single prompt: no history, the system prompt on the current message, extra fields merged", () => {
    const { body } = kiroRequestBody(
      MODEL,
      [
        { role: "system", content: "S" },
        { role: "user", content: "Hi" },
      ],
      [],
      { extra: { profileArn: "arn:override" } },
      { profileArn: ARN },
    );
    expect(body).toEqual({
      conversationState: {
        ...ids,
        agentTaskType: "vibe",
        chatTriggerType: "MANUAL",
        currentMessage: user("S\n\nHi"),
      },
      profileArn: "arn:override",
    });
  });
});
