import { access } from "node:fs/promises";
import { join } from "node:path";
import { type AgentConfig, loadAgentConfig } from "@ollie/agent-core/config";

/** The directories a profile or skill is looked for in: the user's first, then what ships with the app. */
export async function findIn(dirs: readonly string[], file: string): Promise<string | undefined> {
  for (const dir of dirs) {
    const path = join(dir, file);
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return dir;
  }
  return undefined;
}

/**
 * The agent profile `name`, found in `dirs` and checked (its file, line and problem when it is broken), so
 * that a session or a switch is refused at once rather than failing at its first prompt.
 */
export async function checkedProfile(dirs: readonly string[], name: string): Promise<AgentConfig> {
  const dir = await findIn(dirs, `${name}.json`);
  if (!dir) throw new Error(`no agent profile '${name}' (looked in ${dirs.join(", ")})`);
  return loadAgentConfig(dir, name);
}
