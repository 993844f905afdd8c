import type { ChatPiece } from "../chat/chat-pieces.js";
import { followChat } from "../chat/follow-chat.js";
import { parseTurnEnd, type TurnEnd } from "../formats/outcome.js";
import type { NamespaceFiles } from "../namespace/files.js";
import { promptResult } from "../namespace/paths.js";

/**
 * A prompt an agent has taken: its number, and — through `prompts/N` — how its turn ended, whoever else
 * prompts the agent meanwhile. A prompt written while a turn runs waits behind it; its number is given at
 * once all the same.
 */
export class Prompt {
  #ended: Promise<TurnEnd> | undefined;

  /** @internal Made by `Agent.prompt`. */
  constructor(
    private readonly files: NamespaceFiles,
    readonly session: string,
    readonly agent: string,
    /** The prompt's number: 1, 2, 3… over the agent's life, restarts included. */
    readonly number: number,
    /** Where the chat stood just before the prompt was written. */
    private readonly chatFrom: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * How the prompt's turn ended, and the model's last reply in it: one blocking read of `prompts/N`, begun at
   * the first use (at once if the turn has ended; olliesrv remembers the last 256 prompts). It rejects with
   * a RefusedError when it cannot be known (the session was killed), and with the reason of the `signal`
   * given to `Agent.prompt` when that aborts — which leaves the turn running: `Agent.stop()` stops it.
   */
  get ended(): Promise<TurnEnd> {
    if (!this.#ended) {
      const path = promptResult(this.session, this.agent, this.number);
      this.#ended = this.files.read(path, this.signal).then((text) => parseTurnEnd(text, path));
      // Begun by `chat()` as much as by a caller: a chat that fails before it waits for the end (an abort, a
      // killed session) leaves it unawaited, and its failure is then nobody's unhandled rejection. Whoever
      // awaits `ended` still gets it.
      this.#ended.catch(() => {});
    }
    return this.#ended;
  }

  /**
   * The agent's chat from just before the prompt was written until its turn has ended — its prompt
   * (`» TEXT`), the model's text as it streams, its tool calls and their results; and before them, those of
   * any turn it waited behind. The iteration ends once the turn has, and throws what `ended` rejects with.
   * The signal (by default the one given to `Agent.prompt`) aborts the reads; the turn goes on.
   */
  chat(options: { signal?: AbortSignal } = {}): AsyncIterable<ChatPiece> {
    const signal = options.signal ?? this.signal;
    return {
      [Symbol.asyncIterator]: () =>
        followChat({
          files: this.files,
          session: this.session,
          agent: this.agent,
          from: this.chatFrom,
          until: this.ended,
          ...(signal && { signal }),
        }),
    };
  }
}
