import type { SessionSpec } from "@ollie/client";

/** What `ollie new` and ollie_new_session say about a new session. */
export interface SpecOptions {
  agent?: string | undefined;
  cwd?: string | undefined;
  remote?: string | undefined;
  backend?: string | undefined;
  model?: string | undefined;
  name?: string | undefined;
}

/** The spec of a new session for the options given: those set, in this directory unless `cwd` says. */
export function sessionSpec(options: SpecOptions): SessionSpec {
  const spec = { ...options, cwd: options.cwd ?? process.cwd() };
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v)) as SessionSpec;
}
