import type { Tool } from "@ollie/backends";

/** What the loop knows of a tool: its schema, and how it may be run. */
export interface ToolInfo extends Tool {
  /**
   * The tool only reads, so it may run alongside other read-safe calls of the same round. A tool that does
   * not say so always runs alone.
   */
  readSafe?: boolean;
  /** How long one call may run before it is stopped and reported to the model as an error. */
  timeoutMs?: number;
  /**
   * How its results age in the context: kept verbatim (hot, the default), summarized to a line at the next
   * compaction (warm), or collapsed to a line once the model has read them (cold).
   */
  tier?: "hot" | "warm" | "cold";
  /**
   * The tool reads one file, named by this argument: a repeated call in the same turn is answered from the
   * turn's read cache while the file's mtime and size stay the same. Only for read-safe tools.
   */
  cache?: { pathArgument: string };
  /**
   * The executor checks a call's arguments itself and answers a mismatch with an error result (a tool made
   * by `defineTool` from a Standard Schema checks them with that schema): the loop does not check them
   * against `parameters` first, so the model reads the schema's own words, once.
   */
  checksArguments?: boolean;
}

/** What a call produced. `isError` marks a failure the model should see as one. */
export interface ToolResult {
  output: string;
  isError?: boolean;
}

/**
 * Where the agent's tool calls go: an in-process set of functions, or a tool server reached over 9P.
 *
 * Contract: `call` must stop promptly when `signal` aborts (its promise may then reject or resolve); it may
 * throw — the loop turns any throw into an error result the model sees. `revision` changes whenever the
 * list does; the loop compares it after each round of calls and lists the tools again when it moved.
 */
export interface ToolExecutor {
  list(signal?: AbortSignal): Promise<ToolInfo[]>;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
  revision(signal?: AbortSignal): Promise<number>;
  /** Releases what the executor holds; called when the agent switches profile or is closed. */
  close?(): Promise<void>;
}
