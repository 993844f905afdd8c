import { describe, expect, it } from "vitest";
import { conversation, weatherTool } from "../../__fixtures__/conversation.js";
import { SignatureRegistry } from "../../testing/signature-registry.js";
import { renderResponses } from "../../testing/wire/responses.js";
import type { Message } from "../../types.js";
import { decode, MODEL } from "./__fixtures__/responses-stream.js";
import { responsesRequestBody } from "./request-body.js";

describe("the Responses request body", () => {
  it("sends instructions, messages, calls and their outputs, flat tools and the settings", () => {
    const warnings: string[] = [];
    const body = responsesRequestBody(
      "gpt-4.1",
      conversation,
      [weatherTool],
      {
        temperature: 0.2,
        topP: 0.9,
        maxTokens: 4096,
        reasoningEffort: "medium",
        extra: { prompt_cache_key: "s-1" },
      },
      { provider: "copilot" },
      (w) => warnings.push(w),
    );
    expect(body).toEqual({
      model: "gpt-4.1",
      stream: true,
      store: false,
      instructions: "You are a coding agent.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather in Paris and Tokyo?" }] },
        { type: "function_call", call_id: "call_A1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_B2", name: "get_weather", arguments: '{"city":"Tokyo"}' },
        { type: "function_call_output", call_id: "call_A1", output: "18C cloudy" },
        { type: "function_call_output", call_id: "call_B2", output: "24C sunny" },
      ],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Current weather",
          parameters: weatherTool.parameters,
          strict: false,
        },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 4096,
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "s-1",
    });
    expect(warnings).toEqual([]);
  });

  it("leaves out what the API would refuse or has no field for, and says so", () => {
    const warnings: string[] = [];
    const body = responsesRequestBody(
      MODEL,
      conversation.slice(0, 2),
      [],
      { temperature: 0.2, topP: 1, stop: ["</end>"], seed: 7 },
      { provider: "copilot" },
      (w) => warnings.push(w),
    );
    expect(body).toEqual({
      model: MODEL,
      stream: true,
      store: false,
      instructions: "You are a coding agent.",
      input: [{ role: "user", content: [{ type: "input_text", text: "Weather in Paris and Tokyo?" }] }],
      top_p: 1,
    });
    expect(warnings).toEqual([
      `temperature 0.2 is not sent: ${MODEL} accepts only the default`,
      "stop sequences are not sent: the Responses API has none",
      "seed is not sent: the Responses API has none",
    ]);
  });

  it("replays streamed reasoning as its encrypted item, only to the provider and model that made it", async () => {
    const signatures = new SignatureRegistry();
    const rendered = renderResponses(
      {
        reasoning: "Two cities.",
        text: "Looking.",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
      },
      MODEL,
      signatures,
    );
    const done = (await decode(rendered, 64)).events.at(-1);
    if (done?.type !== "done") throw new Error(`the reply did not finish: ${JSON.stringify(done)}`);
    const reply = done.message;
    const encrypted = reply.reasoning?.[0]?.signature;
    expect(signatures.accepts("copilot", MODEL, encrypted)).toBe(true);
    const history: Message[] = [
      ...conversation.slice(0, 2),
      reply,
      { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18C" },
    ];
    const inputOf = (model: string, provider = "copilot") =>
      responsesRequestBody(model, history, [], {}, { provider }).input as unknown[];
    expect(inputOf(MODEL).slice(1)).toEqual([
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Two cities." }],
        encrypted_content: encrypted,
      },
      { role: "assistant", content: [{ type: "output_text", text: "Looking." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: "18C" },
    ]);
    for (const other of [inputOf("gpt-5-mini"), inputOf(MODEL, "openai")]) {
      expect(other.some((i) => (i as { type?: string }).type === "reasoning")).toBe(false);
    }
  });
});
