import type { LimitReached } from "@ollie/sandbox";
import { isTraceparent } from "@ollie/telemetry";
import { z } from "zod";

/** W3C trace context's limit on `tracestate`. */
const TRACESTATE_MAX = 512;

/** A call as written to the `call` file. */
export const callRequestSchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  cwd: z.string().startsWith("/", "cwd must be an absolute path"),
  env: z.record(z.string(), z.string()).default({}),
  /** Start it and answer at once; its output is read from proc/ID/output. */
  detach: z.boolean().optional(),
  /**
   * The caller's span, in W3C trace context form (`00-TRACEID-SPANID-FLAGS`): toolsrv's span of the call is
   * its child, and the tool gets TRACEPARENT. Sent only by a caller that traces, so that other calls stay
   * as toolsrvs without tracing read them.
   */
  traceparent: z
    .string()
    .refine(
      isTraceparent,
      "traceparent must be a W3C traceparent: 00-<32 hex digits>-<16 hex digits>-<2 hex digits>, ids not all zero",
    )
    .optional(),
  /** The caller's vendor trace state, which goes with `traceparent`. */
  tracestate: z
    .string()
    .max(TRACESTATE_MAX, `tracestate must be at most ${TRACESTATE_MAX} characters`)
    .optional(),
});

export type CallRequest = z.input<typeof callRequestSchema>;

/** What the `call` file answers. */
export interface CallResult {
  /** Standard output (or, for an error toolsrv itself reports, what went wrong). */
  output: string;
  isError: boolean;
  exitCode?: number | null;
  signal?: string | null;
  stderr?: string;
  bytes?: number;
  truncated?: boolean;
  timedOut?: boolean;
  cancelled?: boolean;
  durationMs?: number;
  /**
   * The resource limits the tool reached: a fork refused at the agent's process limit (which ends the tool),
   * a process killed at the agent's memory limit, its CPU time or file-size limit.
   */
  reached?: LimitReached[];
  /**
   * Why the call got no result of its own (an MCP server died, the sandbox launcher service died under the
   * tool); the output ends with it.
   */
  failure?: string;
  /** The process's id under proc/. */
  proc?: number;
  detached?: boolean;
  /** Where the call spent its time inside toolsrv, phase by phase in ms (only when timing is on). */
  timing?: Record<string, number>;
}
