import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { ToolCall, ToolResultMessage } from "@ollie/backends";
import type { ToolInfo } from "../tools/tool-executor.js";
import { callKey } from "./stable-json.js";

interface Entry {
  result: ToolResultMessage;
  file: string;
  mtimeMs: number;
  size: number;
}

/**
 * Results of file reads within one turn. A tool is eligible when its metadata names the argument that
 * holds the path (`cache.pathArgument`); a repeated call with the same arguments is answered from here
 * unless the file's mtime or size moved. Any call of a tool that is not read-safe may have changed files,
 * so it empties the cache.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly cwd: string) {}

  /** The cached result for `call`, if it is still fresh. */
  async lookup(call: ToolCall, info: ToolInfo | undefined): Promise<ToolResultMessage | undefined> {
    if (!info?.cache) return undefined;
    const key = callKey(call);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = await stat(entry.file).catch(() => undefined);
    if (now && now.mtimeMs === entry.mtimeMs && now.size === entry.size)
      return { ...entry.result, toolCallId: call.id };
    this.entries.delete(key);
    return undefined;
  }

  /** Notes a finished call: keeps an eligible read, forgets everything after a call that may write. */
  async record(call: ToolCall, info: ToolInfo | undefined, result: ToolResultMessage): Promise<void> {
    if (!info?.readSafe) {
      this.entries.clear();
      return;
    }
    const arg = info.cache?.pathArgument;
    const path = arg === undefined ? undefined : call.arguments[arg];
    if (typeof path !== "string" || result.isError) return;
    const file = isAbsolute(path) ? path : resolve(this.cwd, path);
    const now = await stat(file).catch(() => undefined);
    if (now?.isFile())
      this.entries.set(callKey(call), { result, file, mtimeMs: now.mtimeMs, size: now.size });
  }
}
