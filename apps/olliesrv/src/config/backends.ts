import { access } from "node:fs/promises";
import { join } from "node:path";
import { BackendPool, loadBackendsConf } from "@ollie/backends";
import type { OlliePaths } from "../paths.js";

/**
 * The backend profiles: the user's backends.conf, or the shipped one (Ollama on localhost) when there is
 * none. A broken user file is an error (its message names the file, the line and the problem): the daemon
 * does not start on profiles the user did not write, as it does not on a broken sandbox policy.
 */
export async function loadBackends(paths: OlliePaths): Promise<BackendPool> {
  const user = join(paths.config, "backends.conf");
  const shipped = join(paths.defaults, "backends.conf");
  const exists = await access(user).then(
    () => true,
    () => false,
  );
  return new BackendPool(await loadBackendsConf(exists ? user : shipped));
}
