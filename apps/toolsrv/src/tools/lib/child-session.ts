import { type Fsys, ORDWR } from "@ollie/ninep";
import { carrierFromEnv } from "@ollie/telemetry";
import { ToolError } from "./tool-io.js";

/** What `session/new` takes (olliesrv refuses empty values, so a choice not made is left out). */
export type SessionSpec = Record<string, string>;

/** How a turn of a child session ended: its `prompts/N` file. */
export interface TurnResult {
  /** `done`, `stopped`, `error: …` (the first line of `prompts/N`). */
  outcome: string;
  /** The model's last reply. */
  reply: string;
}

/** The spec with the values that were given, so the profile's own choices hold for the rest. */
export function specOf(values: Record<string, string | undefined>): SessionSpec {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => Boolean(e[1])));
}

/** W3C trace context's limit on `tracestate`: a longer one is left out rather than have the spec refused. */
const TRACESTATE_MAX = 512;

/**
 * The trace context of the call this tool runs for, as toolsrv gave it (TRACEPARENT, TRACESTATE), for a new
 * session's spec: `traceparent` and `tracestate`, so the child's turns join the caller's trace. Nothing when
 * the call is not traced, or TRACEPARENT is not a valid one.
 */
export function traceSpec(env: Readonly<Record<string, string | undefined>>): SessionSpec {
  const carrier = carrierFromEnv(env);
  if (!carrier) return {};
  const { traceparent, tracestate } = carrier;
  return tracestate !== undefined && tracestate.length <= TRACESTATE_MAX
    ? { traceparent, tracestate }
    : { traceparent };
}

/**
 * Makes a session, in the trace of the call that asked for it when that call is traced; `session/new` is a
 * clone file, so its id is read back on the same fid. `what` names the session in the error.
 */
export async function startSession(fsys: Fsys, spec: SessionSpec, what: string): Promise<string> {
  return fsys
    .withFile("session/new", ORDWR, async (f) => {
      await f.write(JSON.stringify({ ...spec, ...traceSpec(process.env) }));
      return (await f.read(0)).toString("utf8").trim();
    })
    .catch((error: unknown) => {
      throw new ToolError(`cannot start ${what}: ${(error as Error).message}`);
    });
}

/** Gives a child its task: a prompt to its main agent, whose result comes back as a callback prompt. */
export async function giveTask(fsys: Fsys, id: string, task: string): Promise<void> {
  await fsys.writeFile(`session/${id}/agent/main/prompt`, task).catch((error: unknown) => {
    throw new ToolError(`session ${id} was started, but the task was refused: ${(error as Error).message}`);
  });
}

/** Prompts a session's main agent and answers the prompt's number, which names its `prompts/N` file. */
export async function promptSession(fsys: Fsys, id: string, text: string): Promise<number> {
  const path = `session/${id}/agent/main/prompt`;
  const answer = await fsys
    .withFile(path, ORDWR, async (f) => {
      await f.write(text);
      return (await f.read(0)).toString("utf8").trim();
    })
    .catch((error: unknown) => {
      throw new ToolError(
        `session ${id} was started, but its prompt was refused: ${(error as Error).message}`,
      );
    });
  const n = Number(answer);
  if (!Number.isInteger(n)) throw new ToolError(`session ${id} answered '${answer}' for its prompt's number`);
  return n;
}

/** Waits for the turn of prompt `n` to end (or `signal` to abort the wait). */
export async function turnResult(
  fsys: Fsys,
  id: string,
  n: number,
  signal?: AbortSignal,
): Promise<TurnResult> {
  const text = (await fsys.readFile(`session/${id}/agent/main/prompts/${n}`, signal)).toString("utf8");
  const newline = text.indexOf("\n");
  return newline < 0
    ? { outcome: text, reply: "" }
    : { outcome: text.slice(0, newline), reply: text.slice(newline + 1) };
}

/** Ends a session and its children; one already gone is not an error. */
export async function killSession(fsys: Fsys, id: string): Promise<void> {
  await fsys.writeFile(`session/${id}/ctl`, "kill").catch(() => undefined);
}

/**
 * Runs `body`; when the call is stopped meanwhile (toolsrv's SIGTERM for a stopped turn or a timeout), the
 * sessions listed in `started` so far are ended before the tool exits, rather than left running unseen.
 */
export async function endedIfStopped<T>(
  fsys: Fsys,
  started: readonly string[],
  body: () => Promise<T>,
): Promise<T> {
  const onSignal = () =>
    void Promise.all(started.map((id) => killSession(fsys, id))).finally(() => process.exit(143));
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    return await body();
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}
