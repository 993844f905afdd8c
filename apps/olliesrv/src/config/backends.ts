import { type BackendPool, CredentialError, type ModelInfo } from "@ollie/backends";
import { listModels } from "./backend-check.js";
import type { ModelCache } from "./model-cache.js";

/** How long a model check waits for the backend's model list before it lets the name through. */
const MODEL_CHECK_MS = 3000;

/**
 * Refuses a model the backend `profile` (its default when undefined) says it does not have. A backend that
 * does not answer within a few seconds, or cannot list its models, is taken at its word later: the model
 * is accepted, and a wrong name fails at the first prompt as before. A credential that cannot be had (an
 * unset key_env, a failing key_cmd) is refused at once. A model in `cache`'s list is taken without asking.
 */
export async function checkModel(
  pool: BackendPool,
  profile: string | undefined,
  model: string,
  cache?: ModelCache,
): Promise<void> {
  const name = pool.profile(profile).name;
  // A model the cached list has needs no backend asked (nor key_cmd run); one it lacks may be new since.
  if (cache?.cached(name)?.some((m) => m.id === model)) return;
  let listed: ModelInfo[];
  try {
    listed = await listModels(pool, name, MODEL_CHECK_MS);
  } catch (error) {
    if (error instanceof CredentialError) throw error;
    return;
  }
  if (listed.length === 0 || listed.some((m) => m.id === model)) return;
  const known = listed.map((m) => m.id);
  throw new Error(
    `backend '${name}' has no model '${model}' (it lists ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})`,
  );
}
