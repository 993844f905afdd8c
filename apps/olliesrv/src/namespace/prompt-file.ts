import { NinepError } from "@ollie/ninep";
import { file, text } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";

/** A file whose writes are prompts to `slot` from the writer (0466: anyone but the agent itself). */
export function promptFile(name: string, slot: AgentSlot, group?: string) {
  return file(
    name,
    text(undefined, {
      maxBytes: slot.maxPromptBytes,
      tooLong: (limit) => `a prompt is at most ${limit}`,
      write: async (body, ctx) => {
        const prompt = body.trim();
        if (prompt === "") throw new NinepError("the prompt is empty");
        await slot.submit(prompt, ctx.uname);
      },
    }),
    { mode: 0o466, owner: slot.uname, ...(group !== undefined && { group }) },
  );
}
