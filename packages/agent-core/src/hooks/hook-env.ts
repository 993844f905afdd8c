/**
 * The OLLIE_* variables a hook gets from its payload: each top-level key in upper snake case
 * (`session_id` → OLLIE_SESSION_ID, `toolName` → OLLIE_TOOL_NAME); objects and arrays as JSON, absent
 * values left out.
 */
export function hookEnv(payload: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    const name = `OLLIE_${key
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .toUpperCase()}`;
    env[name] = typeof value === "object" ? JSON.stringify(value) : String(value);
  }
  return env;
}
