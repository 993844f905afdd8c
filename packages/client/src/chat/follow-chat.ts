import { StringDecoder } from "node:string_decoder";
import type { NamespaceFiles, OpenFile } from "../namespace/files.js";
import { agentFile } from "../namespace/paths.js";
import { type ChatPiece, ChatPieces } from "./chat-pieces.js";

/** What to follow of an agent's chat, and until when. */
export interface FollowChat {
  files: NamespaceFiles;
  session: string;
  agent: string;
  /** The agent's `tail`, opened already; else it is opened now. It is closed when the following ends. */
  tail?: OpenFile;
  /** The byte position to begin at. */
  from: number;
  /** Once this settles, the chat is followed to where it has got by then, and no further. */
  until?: Promise<unknown>;
  signal?: AbortSignal;
}

/**
 * The chat from a position, as it is written: every read of `tail` waits for more. Without `until` it goes
 * on until the chat ends (the agent is gone) or `signal` aborts; with it, it ends once `until` has settled
 * and all the chat had by then is given — so the pieces of a turn are all there when the turn's end is.
 * A failure of `until` (a killed session) is the follower's too.
 */
export async function* followChat(follow: FollowChat): AsyncGenerator<ChatPiece> {
  const { files, session, agent, signal } = follow;
  const tail = follow.tail ?? (await files.open(agentFile(session, agent, "tail"), undefined, signal));
  let pending: Promise<Buffer> | undefined;
  try {
    const utf8 = new StringDecoder("utf8");
    const pieces = new ChatPieces(follow.from);
    let offset = follow.from;
    if (offset === 0) {
      // A tail's first read at offset 0 goes on from where the tail was opened, not from the chat's start:
      // the start is read from `chat`, which holds at least what was written before the tail was opened.
      const start = await files.readBytes(agentFile(session, agent, "chat"), signal);
      yield* pieces.push(utf8.write(start));
      offset = start.length;
    }
    let ended = false;
    const untilEnded = follow.until?.then(() => {
      ended = true;
    });
    // Its failure is the loop's (below); this keeps it from going unhandled meanwhile.
    untilEnded?.catch(() => {});
    let end = Number.POSITIVE_INFINITY;
    for (;;) {
      if (ended && end === Number.POSITIVE_INFINITY)
        end = Number((await files.read(agentFile(session, agent, "offset"), signal)).trim());
      if (offset >= end) break;
      if (!pending) {
        pending = tail.read(offset, signal);
        // A read still waiting when the following ends is cut short by the tail's close.
        pending.catch(() => {});
      }
      const chunk = await (ended || !untilEnded
        ? pending
        : Promise.race([pending, untilEnded.then(() => undefined)]));
      if (chunk === undefined) continue;
      pending = undefined;
      if (chunk.length === 0) break;
      const text = utf8.write(chunk);
      if (text) yield* pieces.push(text);
      offset += chunk.length;
    }
    const rest = utf8.end();
    if (rest) yield* pieces.push(rest);
    await untilEnded;
  } finally {
    await tail.close(signal?.aborted === true);
  }
}
