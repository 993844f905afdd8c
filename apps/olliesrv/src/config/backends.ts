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

/** How long a model check waits for the backend's model list before it lets the name through. */
const MODEL_CHECK_MS = 3000;

/**
 * Refuses a model the backend `profile` (its default when undefined) says it does not have. A backend that
 * does not answer within a few seconds, or cannot list its models, is taken at its word later: the model
 * is accepted, and a wrong name fails at the first prompt as before.
 */
export async function checkModel(
  pool: BackendPool,
  profile: string | undefined,
  model: string,
): Promise<void> {
  const backend = await pool.fresh(profile);
  const listed = await Promise.race([
    backend.models().catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), MODEL_CHECK_MS).unref()),
  ]);
  if (!listed || listed.length === 0 || listed.some((m) => m.id === model)) return;
  const known = listed.map((m) => m.id);
  throw new Error(
    `backend '${backend.name}' has no model '${model}' (it lists ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})`,
  );
}
