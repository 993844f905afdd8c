import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type Block = CallToolResult["content"][number];

/** The bytes a base64 text decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

const size = (bytes: number) => `${bytes.toLocaleString("en")} bytes`;

function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${size(base64Bytes(block.data))}]`;
    case "resource": {
      const r = block.resource;
      const type = r.mimeType ?? "no MIME type";
      if ("text" in r) return `[resource ${r.uri}: ${type}, ${size(Buffer.byteLength(r.text))}]\n${r.text}`;
      return `[resource ${r.uri}: ${type}, ${size(base64Bytes(r.blob))}]`;
    }
    case "resource_link": {
      const parts = [
        block.mimeType ?? "no MIME type",
        ...(block.size === undefined ? [] : [size(block.size)]),
      ];
      const about = block.description ? ` — ${block.description}` : "";
      return `[resource link ${block.uri} (${block.name}): ${parts.join(", ")}]${about}`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/**
 * A tool result as the text a model reads: text as it is; images, audio and binary resources as their MIME
 * type and size (a model that reads text gains nothing from base64); text resources with their text.
 * Structured content stands in when there is no other content.
 */
export function mcpResultText(result: CallToolResult): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent, null, 2);
  return blocks.map(blockText).join("\n");
}
