import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Message } from "@ollie/backends";

/**
 * Appends the history as it was before a compaction to `{dir}/{sessionId}.compaction.jsonl`: a header line,
 * then one line per message with its index. Written before anything is changed, so nothing is lost for good.
 */
export async function writeSnapshot(
  dir: string,
  sessionId: string,
  header: Record<string, unknown>,
  messages: readonly Message[],
): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${sessionId}.compaction.jsonl`);
  const lines = [JSON.stringify({ type: "compaction", ...header })];
  for (const [index, message] of messages.entries())
    lines.push(JSON.stringify({ type: "message", index, message }));
  await appendFile(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

/** Appends what a compaction dropped (message indices and bytes) after its snapshot. */
export async function recordDropped(file: string, dropped: Record<string, unknown>): Promise<void> {
  await appendFile(file, `${JSON.stringify({ type: "dropped", ...dropped })}\n`);
}
