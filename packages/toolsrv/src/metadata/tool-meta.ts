import { type CheckOptions, ConfigError, checkConfig } from "@ollie/config-file";
import { z } from "zod";

/** What a tool says about itself, checked. */
export interface ToolMeta {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Safe to run alongside other read-only calls (`parallel read`). */
  parallelRead: boolean;
  /** How its results age in an agent's context. */
  tier: "hot" | "warm" | "cold";
  /** How long one call may run before its process group is killed. */
  timeoutMs: number;
  /** The argument naming the one file the tool reads (for the agent's read cache). */
  cacheArgument?: string;
  /**
   * An executable in the tool's directory that must be running, detached, for the calling agent before the
   * tool runs (a broker the tool talks to): toolsrv starts it when the agent has none running.
   */
  companion?: string;
  /**
   * The tool may run in the background: a call whose boolean `argument` is true is started detached and
   * answered at once with its process id, and runs for up to `timeoutMs` (the tool's own timeout unless the
   * header names a longer or shorter one).
   */
  background?: { argument: string; timeoutMs: number };
}

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** The metadata as a header or sidecar gives it, before defaults. */
const rawMetaSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/, "a tool name is lower case letters, digits and _, up to 64"),
  description: z.string().min(1, "a tool needs a description"),
  parameters: z.looseObject({ type: z.literal("object") }).optional(),
  parallel: z.enum(["read", "none"]).optional(),
  tier: z.enum(["hot", "warm", "cold"]).optional(),
  timeout: z
    .number()
    .positive()
    .max(24 * 3600)
    .optional(),
  cache: z.string().min(1).optional(),
  companion: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a companion is a file name in the tool's directory")
    .optional(),
  background: z
    .strictObject({
      argument: z.string().min(1),
      timeout: z
        .number()
        .positive()
        .max(24 * 3600)
        .optional(),
    })
    .optional(),
});

/** A tool that could not be used, and why. */
export interface BrokenTool {
  file: string;
  reason: string;
}

/** Checks raw metadata (`where` places it in its sidecar file); a message naming the field on failure. */
export function checkMeta(raw: unknown, where: CheckOptions = {}): { meta: ToolMeta } | { problem: string } {
  let r: z.output<typeof rawMetaSchema>;
  try {
    r = checkConfig(rawMetaSchema, raw, where);
  } catch (error) {
    if (error instanceof ConfigError) return { problem: error.message };
    throw error;
  }
  const meta: ToolMeta = {
    name: r.name,
    description: r.description,
    parameters: r.parameters ?? { type: "object", properties: {} },
    parallelRead: r.parallel === "read",
    tier: r.tier ?? "hot",
    timeoutMs: r.timeout === undefined ? DEFAULT_TOOL_TIMEOUT_MS : r.timeout * 1000,
  };
  if (r.cache !== undefined) meta.cacheArgument = r.cache;
  if (r.companion !== undefined) meta.companion = r.companion;
  if (r.background !== undefined) {
    const { argument, timeout } = r.background;
    const property = (meta.parameters.properties as Record<string, { type?: unknown }> | undefined)?.[
      argument
    ];
    if (property?.type !== "boolean")
      return { problem: `background names '${argument}', which is not a boolean parameter of ${r.name}` };
    meta.background = { argument, timeoutMs: timeout === undefined ? meta.timeoutMs : timeout * 1000 };
  }
  return { meta };
}
