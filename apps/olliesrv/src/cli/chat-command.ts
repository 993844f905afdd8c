import type { OllieClient } from "@ollie/client";

/** `ollie chat [-f] SESSION`: the main agent's chat, and with `follow` what is written to it until it ends. */
export async function chatCommand(client: OllieClient, session: string, follow: boolean): Promise<number> {
  const agent = client.session(session).agent();
  const chat = await agent.chatText();
  process.stdout.write(chat);
  if (!follow) return 0;
  for await (const piece of await agent.chat({ from: Buffer.byteLength(chat) }))
    process.stdout.write(piece.text);
  return 0;
}
