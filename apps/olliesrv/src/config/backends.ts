import { access } from "node:fs/promises";
import { join } from "node:path";
import { BackendPool, loadBackendsConf } from "@ollie/backends";
import type { OlliePaths } from "../paths.js";

/**
 * The backend profiles: the user's backends.conf, or the shipped one (Ollama on localhost) when there is
 * none. A broken user file is reported with its line and the shipped profiles are used instead, so the
 * daemon still serves.
 */
export async function loadBackends(paths: OlliePaths, log: (line: string) => void): Promise<BackendPool> {
  const user = join(paths.config, "backends.conf");
  const shipped = join(paths.defaults, "backends.conf");
  const exists = await access(user).then(
    () => true,
    () => false,
  );
  if (exists) {
    try {
      return new BackendPool(await loadBackendsConf(user));
    } catch (error) {
      log(`${(error as Error).message}; using the default profiles (${shipped}) until it is fixed`);
    }
  }
  return new BackendPool(await loadBackendsConf(shipped));
}
