/**
 * What a new session is made with (`session/new`); every key may be left out. The same words as olliesrv's
 * spec: see NAMESPACE.md.
 */
export interface SessionSpec {
  /** The agent profile of its main agent (default `default`). */
  agent?: string;
  /** The directory its tools work in (a child of an agent's session must be inside the parent's). */
  cwd?: string;
  /** `[user@]host[:dir]`: its tools run on that host over ssh, in `dir` there, else in `cwd`. */
  remote?: string;
  /** A backends.conf profile (default: its default). */
  backend?: string;
  /** A model of that backend (default: the profile's). */
  model?: string;
  name?: string;
  /**
   * When an agent makes the session: whether the child's turns are written back to it as prompts (default
   * true). False: its maker waits for the turns itself (`Prompt.ended`).
   */
  callback?: boolean;
  /**
   * The session's own MCP servers, in mcp.json's `mcpServers` form: toolsrv runs them, in the session's
   * sandbox, for its agents alone (their tools are `mcp__SERVER__TOOL`). The owner's alone to give.
   */
  mcpServers?: Record<string, McpServerSpec>;
}

/** An MCP server of a session: one toolsrv starts, or one it reaches over Streamable HTTP. */
export type McpServerSpec =
  | { command: string; args?: string[]; env?: Record<string, string> }
  | { url: string; headers?: Record<string, string> };

/** A spec as `session/new` reads it: a JSON object, or the caller's own `key=value` words as they are. */
export function specText(spec: SessionSpec | string): string {
  return typeof spec === "string" ? spec : JSON.stringify(spec);
}

/** How to fork an agent (`fork` on its ctl, or its `fork` file). */
export interface ForkOptions {
  /** The agent to fork (default `main`). */
  agent?: string;
  /** The new session's name (default: this session's, and `-fork`). */
  name?: string;
  /** Take the task state alone, and start with an empty history. */
  clean?: boolean;
  signal?: AbortSignal;
}

/** `[--clean] [NAME]`, what the `fork` file takes. */
export function forkSpec(options: ForkOptions): string {
  if (options.name !== undefined && (/[\n\r]/.test(options.name) || options.name.startsWith("-")))
    throw new TypeError(`'${options.name}' cannot be a session's name: one line, not starting with '-'`);
  return `${[options.clean ? "--clean" : "", options.name ?? ""].filter(Boolean).join(" ")}\n`;
}
