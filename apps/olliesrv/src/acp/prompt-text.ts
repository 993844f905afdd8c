import { fileURLToPath } from "node:url";
import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";

/** A resource's URI as the agent reads it: a file URI as its path, anything else as it is. */
function where(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * A prompt's content blocks as the text an Ollie agent takes: text as it is, a resource link as a line
 * naming it (the agent reads it with its tools, in its sandbox), an embedded resource as an attached
 * context block with its path and text. Images, audio and binary resources are refused (the agent's
 * prompt is text; `initialize` says so): an invalid-params error names the block.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((block, i) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "resource_link":
        return `[${block.title ?? block.name}](${where(block.uri)})`;
      case "resource": {
        const { resource } = block;
        if ("text" in resource)
          return `<context path="${where(resource.uri)}">\n${resource.text}\n</context>`;
        throw RequestError.invalidParams(
          { block: i },
          `prompt block ${i}: a binary resource (${resource.mimeType ?? "no type"}) — this agent takes text and text resources`,
        );
      }
      default:
        throw RequestError.invalidParams(
          { block: i },
          `prompt block ${i}: ${block.type} content — this agent takes text, resource links and text resources`,
        );
    }
  });
  const text = parts.join("\n\n").trim();
  if (text === "") throw RequestError.invalidParams(undefined, "the prompt is empty");
  return text;
}
