import type { BackendPool } from "@ollie/backends";

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
