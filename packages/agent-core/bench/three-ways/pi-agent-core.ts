// An agent with one in-process tool that streams its answer: @mariozechner/pi-agent-core.
import { Agent, type AgentTool } from "@mariozechner/pi-agent-core";
import { type Model, Type } from "@mariozechner/pi-ai";

const model: Model<"openai-completions"> = {
  id: "gpt-5-mini",
  name: "GPT-5 mini",
  api: "openai-completions",
  provider: "openai",
  baseUrl: process.env.OPENAI_BASE_URL!,
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 4096,
};
const parameters = Type.Object({ text: Type.String() });
const wordCount: AgentTool<typeof parameters> = {
  name: "word_count",
  label: "Word count",
  description: "Counts the words in a text",
  parameters,
  execute: async (_id, { text }) => ({
    content: [{ type: "text", text: String(text.split(/\s+/).filter(Boolean).length) }],
    details: {},
  }),
};
const agent = new Agent({ initialState: { model, tools: [wordCount] } });
agent.subscribe((event) => {
  if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
    process.stdout.write(event.assistantMessageEvent.delta);
});
await agent.prompt("How many words are in 'the quick brown fox jumps'?");
