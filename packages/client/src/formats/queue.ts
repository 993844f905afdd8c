import { ReplyFormatError } from "../errors.js";

/** A prompt waiting in an agent's queue behind the running turn (a line of its `queue` file). */
export interface QueuedPrompt {
  /**
   * Its number, as `Agent.prompt` answered it and `prompts/N` takes it; undefined for one with none: a
   * prompt that was waiting when olliesrv stopped, run as the session comes back, or text injected when no turn ran, taken as a prompt of its own.
   */
  number: number | undefined;
  /** The uname that wrote it; undefined when not known (a prompt restored after a restart). */
  from: string | undefined;
  /** The prompt as written, whole (a restored one as its agent sees it, its sender's stamp included). */
  text: string;
}

/**
 * An agent's `queue`: a line per waiting prompt, oldest first, tab-separated — its number, its writer's
 * uname (each `-` when there is none), and its text as a JSON string.
 */
export function parseQueue(text: string, path: string): QueuedPrompt[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [number = "", from = "", quoted = "", ...rest] = line.split("\t");
      const prompt = rest.length === 0 ? unquote(quoted) : undefined;
      if (prompt === undefined || !/^(?:-|[1-9]\d*)$/.test(number) || from === "")
        throw new ReplyFormatError(path, line, "not a queued prompt's line");
      return {
        number: number === "-" ? undefined : Number(number),
        from: from === "-" ? undefined : from,
        text: prompt,
      };
    });
}

/** The text of a JSON string; undefined for what is not one. */
function unquote(quoted: string): string | undefined {
  if (!quoted.startsWith('"')) return undefined;
  try {
    const text: unknown = JSON.parse(quoted);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}
