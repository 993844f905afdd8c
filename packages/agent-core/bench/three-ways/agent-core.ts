// An agent with one in-process tool that streams its answer: @ollie/agent-core.
import { Agent, defineTool, ToolSet } from "@ollie/agent-core";
import { OpenAiBackend } from "@ollie/backends";
import { z } from "zod";

const wordCount = defineTool({
  name: "word_count",
  description: "Counts the words in a text",
  input: z.object({ text: z.string() }),
  run: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
});
const backend = new OpenAiBackend({ baseUrl: process.env.OPENAI_BASE_URL!, model: "gpt-5-mini" });
const agent = await Agent.create({ backend, tools: new ToolSet([wordCount]) });
agent.subscribe((event) => event.type === "assistant" && process.stdout.write(event.delta));
await agent.submit("How many words are in 'the quick brown fox jumps'?");
