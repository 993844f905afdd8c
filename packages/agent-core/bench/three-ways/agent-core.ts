// An agent with one in-process tool that streams its answer: @ollie/agent-core.
import { Agent, ToolSet } from "@ollie/agent-core";
import { OpenAiBackend } from "@ollie/backends";

const tools = new ToolSet([
  {
    name: "word_count",
    description: "Counts the words in a text",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: ({ text }) => String(String(text).split(/\s+/).filter(Boolean).length),
  },
]);
const backend = new OpenAiBackend({ baseUrl: process.env.OPENAI_BASE_URL!, model: "gpt-5-mini" });
const agent = await Agent.create({ backend, tools });
agent.subscribe((event) => event.type === "assistant" && process.stdout.write(event.delta));
await agent.submit("How many words are in 'the quick brown fox jumps'?");
