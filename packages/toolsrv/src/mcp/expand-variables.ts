/**
 * Expands `${VAR}` and `${VAR:-default}` from `env`, as MCP clients do in mcp.json, so secrets stay in the
 * environment rather than the file. A variable that is unset (or empty) and has no default is an error
 * naming it: a server started with a literal `${TOKEN}` would fail later, less clearly.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback?: string) => {
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      throw new Error(
        `\${${name}} is not set in toolsrv's environment and has no default (\${${name}:-DEFAULT})`,
      );
    },
  );
}
