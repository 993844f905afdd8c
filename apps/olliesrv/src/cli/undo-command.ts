import { parseArgs } from "node:util";
import type { OllieClient } from "@ollie/client";

/** `ollie undo [--chat | --both] SESSION`. */
export interface UndoInvocation {
  command: "undo";
  session: string;
  /** The directory (default), the conversation (`--chat`), or both (`--both`). */
  scope: "files" | "chat" | "both";
}

export function parseUndo(args: string[]): UndoInvocation {
  const { values, positionals } = parseArgs({
    args,
    options: { chat: { type: "boolean" }, both: { type: "boolean" } },
    allowPositionals: true,
  });
  const [session, ...more] = positionals;
  if (!session || more.length > 0) throw new Error("undo takes one session (an id or a name)");
  if (values.chat && values.both) throw new Error("undo takes --chat or --both, not both");
  return { command: "undo", session, scope: values.both ? "both" : values.chat ? "chat" : "files" };
}

/**
 * Takes back the last turn of the session's main agent that wrote (`undo` on its ctl) and prints what the
 * chat was told: the checkpoint rewound to and what was restored.
 */
export async function undoCommand(client: OllieClient, undo: UndoInvocation): Promise<number> {
  const agent = client.session((await client.findSession(undo.session)).id).agent();
  await agent.ctl(undo.scope === "files" ? "undo" : `undo ${undo.scope}`);
  const told = (await agent.chatText())
    .split("\n")
    .findLast((line) => line.startsWith("· rewound to checkpoint"));
  process.stdout.write(`${told?.slice(2) ?? "rewound"}\n`);
  return 0;
}
