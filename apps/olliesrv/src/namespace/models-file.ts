import type { ModelInfo } from "@ollie/backends";
import { Errno } from "@ollie/ninep";
import { file, text } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";
import type { SessionEnvironment } from "../session/slot-context.js";
import { failWith } from "./fail.js";

/** What a provider says of a model besides its window: `out=N tools vision premium=X` (Copilot says all). */
function traitsOf(m: ModelInfo): string[] {
  const traits: string[] = [];
  if (m.maxOutputTokens !== undefined) traits.push(`out=${m.maxOutputTokens}`);
  if (m.tools !== undefined) traits.push(m.tools ? "tools" : "no-tools");
  if (m.vision) traits.push("vision");
  if (m.premiumMultiplier !== undefined) traits.push(`premium=${m.premiumMultiplier}`);
  return traits;
}

/**
 * One line per model: its id, its context window where known, and — when the provider says more — a third
 * column of traits (the window is `-` then if unknown).
 */
export const modelLines = (models: readonly ModelInfo[]) =>
  models
    .map((m) => {
      const traits = traitsOf(m);
      if (traits.length === 0) return `${m.id}${m.contextLength ? `\t${m.contextLength}` : ""}\n`;
      return `${m.id}\t${m.contextLength ?? "-"}\t${traits.join(" ")}\n`;
    })
    .join("");

/**
 * A `models` file: the cached list of the backends.conf profile `profile()` names (the default when it gives
 * undefined). A read asks no backend: it waits only for a fetch already under way, and a list that could
 * not be had is an error saying why and when olliesrv asks again.
 */
export function modelsFile(env: SessionEnvironment, profile: () => Promise<string | undefined>) {
  return file(
    "models",
    text(
      async () => {
        try {
          return modelLines(await env.making.models.models(await profile()));
        } catch (error) {
          // What failed reaches a 9P2000.L client too: a backend that refused the connection is ECONNREFUSED.
          return failWith(error, Errno.EIO);
        }
      },
      // A read may wait for a fetch under way; a stat must not.
      { size: false },
    ),
  );
}

/**
 * The profile an agent's requests go to: the live agent's backend, else the one chosen for it (`backend`),
 * else its agent profile's, else backends.conf's default — without connecting a paused agent.
 */
export async function agentBackendProfile(
  env: SessionEnvironment,
  slot: AgentSlot,
): Promise<string | undefined> {
  const live = slot.agent?.runtime.backend.name;
  if (live !== undefined && env.making.backends.conf.profiles.has(live)) return live;
  if (slot.choices.backend !== undefined) return slot.choices.backend;
  return (await slot.profileInUse()).config.backend;
}

/**
 * The backends.conf profile and model an agent's requests go to, as `cfg` shows them: the live agent's; else
 * what making it would choose — the backend and model it was switched to, else its agent profile's, else
 * backends.conf's default profile and that profile's model. Connects no paused agent; a broken profile
 * leaves backends.conf's defaults, and an unknown one the model empty.
 */
export async function effectiveBackend(
  env: SessionEnvironment,
  slot: AgentSlot,
): Promise<{ backend: string; model: string }> {
  const config = await slot.profileInUse().then(
    (p) => p.config,
    () => undefined,
  );
  const backend =
    (await agentBackendProfile(env, slot).catch(() => undefined)) ??
    env.making.backends.conf.defaultProfile ??
    "";
  const model =
    slot.agent?.runtime.backend.model ??
    slot.choices.model ??
    config?.model ??
    env.making.backends.conf.profiles.get(backend)?.model ??
    "";
  return { backend, model };
}
