import { isAbsolute, resolve } from "node:path";
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { ToolCallRecord, ToolResultRecord } from "@ollie/client";
import { firstArgument } from "../session/activity.js";

/**
 * What each shipped tool does, in the editor's words: it picks the icon and how the call is shown. A tool
 * of the user's or an MCP server's is `other`.
 */
const KINDS: Readonly<Record<string, ToolKind>> = {
  file_read: "read",
  file_edit: "edit",
  file_write: "edit",
  file_glob: "search",
  file_grep: "search",
  lsp_definition: "search",
  lsp_references: "search",
  lsp_symbols: "search",
  lsp_hover: "read",
  lsp_diagnostics: "read",
  lsp_rename: "edit",
  memory_recall: "read",
  memory_remember: "edit",
  reasoning_think: "think",
  shell: "execute",
  bypass_request: "execute",
  web_fetch: "fetch",
  web_search: "fetch",
};

/** The argument a file tool names its file with. */
const PATH_ARGUMENTS = ["path", "file", "file_path"];
/** The argument that says where in the file (1-based), for the tools that take one. */
const LINE_ARGUMENTS = ["line", "offset", "start_line"];

export const toolKind = (name: string): ToolKind => KINDS[name] ?? "other";

/** The file a call is about, as an absolute path: relative paths are the session's directory's. */
function pathOf(call: ToolCallRecord, cwd: string): string | undefined {
  for (const key of PATH_ARGUMENTS) {
    const value = call.arguments[key];
    if (typeof value === "string" && value !== "") return isAbsolute(value) ? value : resolve(cwd, value);
  }
  return undefined;
}

function locationsOf(call: ToolCallRecord, cwd: string): ToolCallLocation[] {
  const path = pathOf(call, cwd);
  if (path === undefined) return [];
  const line = LINE_ARGUMENTS.map((key) => call.arguments[key]).find(
    (v): v is number => typeof v === "number" && Number.isInteger(v) && v >= 1,
  );
  return [{ path, ...(line !== undefined && { line }) }];
}

/**
 * An edit as the editor shows it, from the call's arguments alone: file_edit's replaced text and its
 * replacement, file_write's new content (the old is not read: this process runs as the owner, outside the
 * agent's sandbox, and reads nothing an agent names).
 */
function diffOf(call: ToolCallRecord, cwd: string): ToolCallContent | undefined {
  const path = pathOf(call, cwd);
  if (path === undefined) return undefined;
  const { old_string: oldText, new_string: newText, content } = call.arguments;
  if (call.name === "file_edit" && typeof oldText === "string" && typeof newText === "string")
    return { type: "diff", path, oldText, newText };
  if (call.name === "file_write" && typeof content === "string")
    return { type: "diff", path, oldText: null, newText: content };
  return undefined;
}

/** The `tool_call` of a call the model made: pending until it runs. */
export function toolCallOf(call: ToolCallRecord, cwd: string): ToolCall {
  const argument = firstArgument(call);
  const locations = locationsOf(call, cwd);
  return {
    toolCallId: call.id,
    title: argument === "" ? call.name : `${call.name}: ${argument}`,
    kind: toolKind(call.name),
    status: "pending",
    ...(locations.length > 0 && { locations }),
    rawInput: call.arguments,
  };
}

/** The content a finished call shows: the edit it made, else what it returned. */
export function resultContent(
  call: ToolCallRecord,
  result: ToolResultRecord,
  cwd: string,
): ToolCallContent[] {
  const diff = result.isError ? undefined : diffOf(call, cwd);
  const text: ToolCallContent = { type: "content", content: { type: "text", text: result.content } };
  return diff ? [diff, text] : [text];
}
