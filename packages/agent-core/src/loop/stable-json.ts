import type { ToolCall } from "@ollie/backends";

/** A tool call's identity: its name and arguments, whatever their key order. */
export const callKey = (call: ToolCall): string => `${call.name}\u0000${stableJson(call.arguments)}`;

/** JSON with object keys sorted at every level: equal values give equal text, whatever the key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
