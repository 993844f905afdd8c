/** The prefix of messages the loop itself adds, so the model (and a reader of the chat) can tell. */
export const NUDGE_PREFIX = "[ollie] ";

/** A hook's output as a message in the context. */
export function hookNote(event: string, output: string): string {
  return `${NUDGE_PREFIX}${event} hook:\n${output}`;
}
