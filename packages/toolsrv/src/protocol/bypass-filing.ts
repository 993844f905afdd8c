import { z } from "zod";

/**
 * What an agent writes to `bypass/new`. Without `argv`, the operation's own command as the policy gives it;
 * toolsrv fills in nothing else.
 */
export const bypassFilingSchema = z.strictObject({
  operation: z.string().min(1),
  argv: z.array(z.string()).min(1).optional(),
  cwd: z.string().startsWith("/", "cwd must be an absolute path"),
  reason: z.string().default(""),
});

/** What an agent asks for. Without `argv`, the operation's own command; toolsrv fills in nothing else. */
export type BypassFiling = z.input<typeof bypassFilingSchema>;
