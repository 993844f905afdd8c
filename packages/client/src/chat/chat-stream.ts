import type { NamespaceFiles, OpenFile } from "../namespace/files.js";
import { agentFile } from "../namespace/paths.js";
import type { ChatPiece } from "./chat-pieces.js";
import { followChat } from "./follow-chat.js";

/** Where to begin following a chat. */
export interface ChatOptions {
  /**
   * `now` (the default): what is written from the moment `chat()` resolves; `start`: the whole chat, then
   * what follows; a number: from that byte position (a piece's `offset`, or `Agent.chatLength()`).
   */
  from?: "now" | "start" | number;
  /** Aborts the reads: the iteration then throws the signal's reason. */
  signal?: AbortSignal;
}

/**
 * An agent's chat as it is written, in pieces of one line at most, each with its line's kind. Open from the
 * moment `Agent.chat()` resolved; iterate it once. It goes on until the agent is gone (its session killed:
 * the iteration then throws the RefusedError saying so) or the signal aborts; leaving the iteration, or
 * `close()`, lets it go.
 */
export class ChatStream implements AsyncIterable<ChatPiece> {
  private constructor(
    private readonly files: NamespaceFiles,
    private readonly session: string,
    private readonly agent: string,
    private readonly tail: OpenFile,
    private readonly from: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  static async open(
    files: NamespaceFiles,
    session: string,
    agent: string,
    options: ChatOptions = {},
  ): Promise<ChatStream> {
    const { signal } = options;
    const from = options.from ?? "now";
    if (typeof from === "number" && !(Number.isSafeInteger(from) && from >= 0))
      throw new TypeError(`a chat position is a byte offset, not ${from}`);
    // Opened first: what is written from here on is in it, whatever the position read next says.
    const tail = await files.open(agentFile(session, agent, "tail"), undefined, signal);
    try {
      const start =
        from === "start"
          ? 0
          : from === "now"
            ? Number((await files.read(agentFile(session, agent, "offset"), signal)).trim())
            : from;
      return new ChatStream(files, session, agent, tail, start, signal);
    } catch (error) {
      await tail.close(signal?.aborted === true);
      throw error;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatPiece> {
    const { files, session, agent, tail, from, signal } = this;
    return followChat({ files, session, agent, tail, from, ...(signal && { signal }) });
  }

  async close(): Promise<void> {
    await this.tail.close(this.signal?.aborted === true);
  }
}
