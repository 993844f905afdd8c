import { Errno, NinepError } from "@ollie/ninep";
import { each, file, text } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";
import { TicketError } from "../session/prompt-tickets.js";
import { fail } from "./fail.js";

/**
 * A file whose writes are prompts to `slot` from the writer (0466: anyone but the agent itself). A prompt is
 * taken when the open that wrote it is clunked or, on an open for reading and writing, at the next read,
 * which answers with the prompt's number: what `prompts/N` waits on.
 */
export function promptFile(name: string, slot: AgentSlot, group?: string) {
  return file(
    name,
    text(undefined, {
      maxBytes: slot.maxPromptBytes,
      tooLong: (limit) => `a prompt is at most ${limit}`,
      answerReads: true,
      write: async (body, ctx) => {
        const prompt = body.trim();
        if (prompt === "") fail("the prompt is empty");
        return `${await slot.submit(prompt, ctx.uname)}\n`;
      },
    }),
    { mode: 0o466, owner: slot.uname, ...(group !== undefined && { group }) },
  );
}

/**
 * `prompts/N`: reading it waits until the turn of prompt N (the number a read of `prompt` answered) has
 * ended — at once if it already has — and gives how it ended on the first line, then the model's reply.
 */
export function promptsDir(slot: AgentSlot) {
  return each(
    "prompts",
    () => slot.tickets.remembered().map(String),
    (name: string) =>
      file(
        name,
        {
          read: async ({ offset, count, signal }) => {
            const result = await slot.tickets.wait(Number(name), signal).catch((error: unknown) => {
              throw error instanceof TicketError
                ? new NinepError(error.message, { errno: Errno.ENOENT })
                : error;
            });
            const reply =
              result.reply === "" || result.reply.endsWith("\n") ? result.reply : `${result.reply}\n`;
            return Buffer.from(`${result.outcome}\n${reply}`, "utf8").subarray(offset, offset + count);
          },
        },
        { mode: 0o444, owner: slot.uname },
      ),
    {
      mode: 0o555,
      owner: slot.uname,
      lookup: (name) => (/^[1-9][0-9]{0,15}$/.test(name) ? name : undefined),
    },
  );
}
