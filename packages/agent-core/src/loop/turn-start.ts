import { NUDGE_PREFIX } from "../history/nudge.js";
import type { TurnContext } from "./turn-context.js";

/** A user message of the turn's own: an injection, or a nudge from the loop (marked as the loop's). */
export function addUserMessage(t: TurnContext, text: string, from: "inject" | "ollie"): void {
  t.history.append({ role: "user", content: from === "ollie" ? `${NUDGE_PREFIX}${text}` : text });
  t.emit({ type: "user", text, from });
}

/**
 * The prompt goes in: the preTurn hook may refuse it (its reason is returned) or add to it; the profile's
 * user prompts go before it. It is saved at once: were the process to die now, the restored history says
 * the prompt was taken. The turn is under way from the start, its hook included: the state leaves `idle`
 * at once (showing the hook while it runs) and comes back to it only when the turn has ended.
 */
export async function takePrompt(
  t: TurnContext,
  prompt: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  // The hook shows its state as soon as it is called, so the turn's own step changes nothing shown yet.
  const hooked = t.hook("preTurn", { prompt }, signal);
  t.setState("thinking");
  const pre = await hooked;
  if (pre.action === "block") return pre.output;
  const parts = [...t.runtime.userPrompts, prompt];
  if (pre.output) parts.push(pre.output);
  t.history.append({ role: "user", content: parts.join("\n\n") });
  t.emit({ type: "user", text: prompt, from: "user" });
  await t.persist();
  if (t.taskState.objective === "") t.taskState = { ...t.taskState, objective: prompt.slice(0, 500) };
  return undefined;
}
