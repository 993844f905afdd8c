// The README's example: an agent with one in-process tool. Run: node --import tsx examples/embed.ts
import { Agent, defineTool, ToolSet } from "@ollie/agent-core";
import { ScriptedBackend } from "@ollie/backends/testing";
import { z } from "zod";

// A scripted model that calls the tool once, then answers. Any Backend fits here, e.g. an AnthropicBackend.
const backend = new ScriptedBackend({
  replies: [
    {
      text: "Let me count.",
      toolCalls: [{ name: "word_count", arguments: { text: "the quick brown fox" } }],
    },
    { text: "There are 4 words." },
  ],
});

// The schema types run's arguments ({ text: string }), is shown to the model as JSON Schema, and checks
// each call: arguments that do not fit go back to the model as an error, and run is not called.
const wordCount = defineTool({
  name: "word_count",
  description: "Counts the words in a text",
  input: z.object({ text: z.string() }),
  readSafe: true, // may run alongside other read-safe calls
  run: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
});

const agent = await Agent.create({ backend, tools: new ToolSet([wordCount]), prompt: "You count words." });
agent.subscribe((event) => {
  if (event.type === "assistant") process.stdout.write(event.delta);
  if (event.type === "call") console.log(`\n-> ${event.call.name}(${JSON.stringify(event.call.arguments)})`);
  if (event.type === "tool") console.log(`<- ${event.result.content}`);
  if (event.type === "state") console.error(`[${event.state}]`);
});

const outcome = await agent.submit("How many words are in 'the quick brown fox'?");
console.log(
  `\n${outcome.status} after ${outcome.steps} round(s) of tools, ${outcome.usage.requests} requests`,
);
