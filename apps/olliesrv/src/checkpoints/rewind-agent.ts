import type { Agent } from "@ollie/agent-core";
import type { Message } from "@ollie/backends";
import { type AgentCheckpoints, messageDigest } from "./agent-checkpoints.js";
import type { Checkpoint, Rewound } from "./types.js";

/** What `rewind N` takes back: the directory (the default), the conversation, or both. */
export type RewindScope = "files" | "chat" | "both";

/** The agent a rewind acts on: idle, its conversation cut in place, a note in its chat. */
export interface RewoundAgent {
  /** The live agent, made if it was parked (a cut of the conversation needs it). */
  activate(): Promise<Agent>;
  note(line: string): void;
  save(): Promise<void>;
}

/** A rewind that cannot be made, worded for the person who asked. */
export class RewindRefused extends Error {
  override readonly name = "RewindRefused";
}

/**
 * `rewind N [files|chat|both]`: the directory made as checkpoint N has it, and/or the conversation cut back
 * to before the turn N was made in. The directory's rewind is recorded first (a `before rewind`
 * checkpoint), so it can be rewound in turn; the conversation's cut is not kept (a fork keeps one).
 * Resolves with what the chat was told.
 */
export async function rewindAgent(
  checkpoints: AgentCheckpoints,
  agent: RewoundAgent,
  n: number,
  scope: RewindScope,
): Promise<string> {
  const target = (await checkpoints.list()).find((c) => c.n === n);
  if (!target) throw new RewindRefused(`no checkpoint ${n} (the checkpoints file lists them)`);
  // The conversation is checked before anything changes: a rewind is all it was asked to be, or nothing.
  const cutAt = scope === "files" ? undefined : await conversationCut(agent, target);
  const files = scope === "chat" ? undefined : await checkpoints.rewind(n);
  return finish(agent, target, files, cutAt);
}

/**
 * `undo [chat|both]`: takes back the last turn that wrote — the directory made as it was before that turn,
 * and/or the conversation cut back to before it. Once the directory is as the last turn's checkpoint has
 * it (undone already), the turn before is taken back: undo after undo goes back a turn at a time.
 */
export async function undoTurn(
  checkpoints: AgentCheckpoints,
  agent: RewoundAgent,
  scope: RewindScope,
): Promise<string> {
  const turns = (await checkpoints.list()).filter((c) => c.kind === "turn").reverse();
  if (turns.length === 0)
    throw new RewindRefused("no turn of this agent has written since checkpoints began");
  const history = scope === "files" ? [] : (await agent.activate()).history;
  for (const target of turns) {
    // A conversation cut back to before this turn already: the turn before is the one to take back.
    const cut = scope !== "files" && target.history !== undefined && history.length > target.history.messages;
    if (scope === "chat") {
      if (cut) return finish(agent, target, undefined, await conversationCut(agent, target));
      continue;
    }
    const cutAt = cut ? await conversationCut(agent, target) : undefined;
    const files = await checkpoints.rewind(target.n);
    if (files.before !== undefined || cutAt !== undefined) return finish(agent, target, files, cutAt);
  }
  throw new RewindRefused(
    "nothing to undo: the directory and the conversation are as before the first turn that wrote",
  );
}

async function finish(
  agent: RewoundAgent,
  target: Checkpoint,
  files: Rewound | undefined,
  cutAt: number | undefined,
): Promise<string> {
  if (cutAt !== undefined) {
    const live = await agent.activate();
    // A turn may have begun while the files were rewound: its conversation is not cut from under it.
    if (live.state !== "idle" || !holdsTurn(live.history, target))
      throw new RewindRefused(
        `${files ? `the files were rewound to checkpoint ${target.n}${files.before ? ` (rewind ${files.before.n} takes it back)` : ""}, but ` : ""}the conversation was not cut: a turn began meanwhile`,
      );
    live.replaceHistory(live.history.slice(0, cutAt));
  }
  const said = [
    files && filesSaid(files),
    cutAt !== undefined && `the conversation cut back to before turn ${target.turn}`,
  ]
    .filter(Boolean)
    .join("; ");
  const line = `· rewound to checkpoint ${target.n}${target.turn === undefined ? "" : ` (turn ${target.turn})`}: ${said}`;
  agent.note(line);
  await agent.save();
  return line;
}

/** Where the conversation is cut for a rewind to `target`: the turn's prompt must still be where it was. */
async function conversationCut(agent: RewoundAgent, target: Checkpoint): Promise<number> {
  const at = target.history;
  if (!at)
    throw new RewindRefused(
      `checkpoint ${target.n} was made by a rewind, not before a turn: there is no turn to cut the conversation back to`,
    );
  if (!holdsTurn((await agent.activate()).history, target))
    throw new RewindRefused(
      `the conversation no longer holds turn ${target.turn} as it was (compacted or cleared since): only its files can be rewound`,
    );
  return at.messages;
}

/** Whether `history` still holds the prompt of `target`'s turn where the turn began. */
function holdsTurn(history: readonly Message[], target: Checkpoint): boolean {
  const at = target.history;
  return at !== undefined && messageDigest(history[at.messages]) === at.prompt;
}

function filesSaid(rewound: Rewound): string {
  if (rewound.files.length === 0) return "the directory was as it already is";
  const count = rewound.files.length;
  const kept = rewound.untouched.length > 0 ? ` (${rewound.untouched.length} left as they are)` : "";
  return `${count} file${count === 1 ? "" : "s"} restored${kept}; rewind ${rewound.before?.n} takes this back`;
}
