import type { ToolMeta } from "../metadata/tool-meta.js";

/** Tools toolsrv answers itself: always loaded, so an agent can grow its set. */
export const BUILTINS: readonly ToolMeta[] = [
  {
    name: "tool_load",
    description: "Load more tools by name (see tool_list). Their schemas are sent with your next request.",
    parameters: {
      type: "object",
      properties: { names: { type: "array", items: { type: "string" }, description: "The tools to load" } },
      required: ["names"],
    },
    parallelRead: false,
    tier: "hot",
    timeoutMs: 10_000,
  },
  {
    name: "tool_list",
    description: "List the tools that exist but are not loaded, one per line: name, then what it does.",
    parameters: { type: "object", properties: {} },
    parallelRead: true,
    tier: "cold",
    timeoutMs: 10_000,
  },
];

export const isBuiltin = (name: string) => BUILTINS.some((b) => b.name === name);
