import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Tool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A listing that goes on past this many pages is a server gone wrong. */
const MAX_PAGES = 100;

// Each tool is checked on its own (the SDK's listTools refuses a whole page for one malformed tool).
const pageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A server's tools, and those that could not be used with why. */
export interface ToolListing {
  tools: Tool[];
  refused: Array<{ name: string; reason: string }>;
}

/**
 * Every page of a server's tools, within one deadline for the whole listing. A tool that does not fit MCP's
 * Tool schema (an input schema that is not an object, say) is set aside with the reason; a cursor seen
 * before, or more than 100 pages, ends the listing as an error.
 */
export async function listTools(client: Client, timeoutMs: number): Promise<ToolListing> {
  const signal = AbortSignal.timeout(timeoutMs);
  const listing: ToolListing = { tools: [], refused: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const answer = await client.request({ method: "tools/list", params }, pageSchema, {
      signal,
      timeout: timeoutMs,
    });
    for (const raw of answer.tools) {
      const tool = ToolSchema.safeParse(raw);
      if (tool.success) listing.tools.push(tool.data);
      else listing.refused.push({ name: nameOf(raw), reason: describe(tool.error.issues) });
    }
    cursor = answer.nextCursor;
    if (cursor === undefined) return listing;
    if (seen.has(cursor)) throw new Error(`its tool list came back to the cursor '${cursor}'`);
    if (page >= MAX_PAGES) throw new Error(`its tool list goes on past ${MAX_PAGES} pages`);
    seen.add(cursor);
  }
}

function nameOf(raw: unknown): string {
  const name = (raw as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "(a tool without a name)";
}

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join(".") || "the tool"}: ${i.message}`)
    .join("; ");
}
