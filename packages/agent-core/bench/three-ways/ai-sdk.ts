// An agent with one in-process tool that streams its answer: the AI SDK (ai 6).
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, tool } from "ai";
import { z } from "zod";

const provider = createOpenAICompatible({ name: "openai", baseURL: process.env.OPENAI_BASE_URL! });
const agent = new ToolLoopAgent({
  model: provider.chatModel("gpt-5-mini"),
  tools: {
    word_count: tool({
      description: "Counts the words in a text",
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
    }),
  },
});
const result = await agent.stream({ prompt: "How many words are in 'the quick brown fox jumps'?" });
for await (const delta of result.textStream) process.stdout.write(delta);
