import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type AgentConfig, AgentConfigError, loadAgentConfig } from "@ollie/agent-core/config";

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
 * The agent profile `name`, found in `dirs` and checked — its file, line and problem when it is broken, and
 * each hook that names a script (`/path/x`, `$OLLIE/hooks/x`, `~/x`) must name an executable file — so that
 * a session or a switch is refused at once rather than failing at its first prompt. `ollieDir` is `$OLLIE`.
 */
export async function checkedProfile(
  dirs: readonly string[],
  name: string,
  ollieDir: string,
): Promise<AgentConfig> {
  const dir = await findIn(dirs, `${name}.json`);
  if (!dir) throw new Error(`no agent profile '${name}' (looked in ${dirs.join(", ")})`);
  const config = await loadAgentConfig(dir, name);
  for (const [event, commands] of Object.entries(config.hooks ?? {})) {
    for (const command of [commands ?? []].flat()) {
      const script = command
        .trim()
        .split(/\s+/)[0]!
        .replace(/^\$\{?OLLIE\}?(?=\/)/, ollieDir)
        .replace(/^~(?=\/)/, homedir());
      if (!script.includes("/") || script.includes("$")) continue;
      const usable = await access(resolve(dir, script), constants.X_OK).then(
        () => true,
        () => false,
      );
      if (!usable)
        throw new AgentConfigError(join(dir, `${name}.json`), {
          key: `hooks.${event}`,
          problem: `${script} is not an executable file`,
        });
    }
  }
  return config;
}
