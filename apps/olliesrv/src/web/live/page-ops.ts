/**
 * What the live stream asks a page to do: the whole vocabulary of the page's script. Markup in these is made
 * on the server by the escaping templates; text is put in as text.
 */
export type PageOp =
  /** Replaces the element's content. */
  | { op: "html"; id: string; html: string }
  /** Replaces the element whole, or adds it at the end of `parent` when there is none. */
  | { op: "upsert"; id: string; parent: string; html: string }
  | { op: "remove"; id: string }
  /** Removes the rows of `parent` (elements of class `session`) whose ids are not listed. */
  | { op: "only"; parent: string; ids: string[] }
  | { op: "append"; id: string; html: string }
  | { op: "text"; id: string; text: string }
  | { op: "appendText"; id: string; text: string }
  /** Puts `text` into the oldest call of `tool` in the transcript still waiting for its result. */
  | { op: "result"; tool: string; text: string }
  /** The whole result of the oldest call of `tool` seen live without it (the chat has its first line). */
  | { op: "fullResult"; tool: string; text: string }
  /** A browser notification, when the person allowed them. */
  | { op: "notify"; title: string; body: string; url: string }
  /** Said by the polite live region. */
  | { op: "announce"; text: string }
  /** Whether olliesrv answers `ollie web`. */
  | { op: "link"; up: boolean; text: string };
