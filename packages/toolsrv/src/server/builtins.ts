import type { ToolMeta } from "../metadata/tool-meta.js";

/** What a builtin answers: a call result without a process behind it. */
export interface BuiltinAnswer {
  output: string;
  isError: boolean;
}

/** The longest process_output waits for more output, in seconds. */
export const MAX_OUTPUT_WAIT_S = 300;

const processId = { type: "integer", description: "The process id its start answered with" };

/** Tools toolsrv answers itself: always loaded, so an agent can grow its set and follow its processes. */
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
  {
    name: "tool_active",
    description: "List the tools you have loaded, one per line: name, then what it does.",
    parameters: { type: "object", properties: {} },
    parallelRead: true,
    tier: "cold",
    timeoutMs: 10_000,
  },
  {
    name: "process_output",
    description:
      "Read one of your background processes (a call started with background: true): whether it runs or how it " +
      "ended, and its output from where your last process_output of it stopped. With wait, waits up to that " +
      "many seconds for more output or for the end when there is none yet.",
    parameters: {
      type: "object",
      properties: {
        id: processId,
        offset: {
          type: "integer",
          description: "Read from this byte of its output instead (0: from the start)",
        },
        wait: {
          type: "number",
          description: `Seconds to wait for more output or the end, at most ${MAX_OUTPUT_WAIT_S} (default 0)`,
        },
      },
      required: ["id"],
    },
    parallelRead: true,
    tier: "hot",
    timeoutMs: (MAX_OUTPUT_WAIT_S + 10) * 1000,
  },
  {
    name: "process_kill",
    description: "End one of your background processes and everything it started. Its output stays readable.",
    parameters: { type: "object", properties: { id: processId }, required: ["id"] },
    parallelRead: false,
    tier: "hot",
    timeoutMs: 10_000,
  },
];

export const isBuiltin = (name: string) => BUILTINS.some((b) => b.name === name);
