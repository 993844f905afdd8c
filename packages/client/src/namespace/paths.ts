/**
 * The paths of olliesrv's namespace (see olliesrv's NAMESPACE.md), spelled here and nowhere else in the
 * client. Every name that becomes a path element is checked first, so none can reach outside the directory
 * it is meant for.
 */

/** A session id as olliesrv makes them: nanoseconds since the epoch, a dash, six hex digits. */
const SESSION_ID = /^\d{19}-[0-9a-f]{6}$/;

/** An agent's name within its session (`main`). */
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Whether `text` has the shape of a session id (rather than a session's name). */
export function isSessionId(text: string): boolean {
  return SESSION_ID.test(text);
}

export function checkSessionId(id: string): string {
  if (!isSessionId(id)) throw new TypeError(`'${id}' is not a session id`);
  return id;
}

export function checkAgentName(name: string): string {
  if (!AGENT_NAME.test(name)) throw new TypeError(`'${name}' is not an agent name`);
  return name;
}

/** The files at the root. */
export const ROOT = {
  backends: "backends",
  backendsCheck: "backends.check",
  ctl: "ctl",
  models: "models",
  profiles: "profiles",
  stats: "stats",
} as const;

export const NEW_SESSION = "session/new";
export const SESSION_INDEX = "session/idx";
/** Blocks until `session/idx` differs from what this fid last returned, then answers the whole of it. */
export const SESSION_INDEX_WAIT = "session/idxwait";

/** A file of session `id`: `ctl`, `plan`, `env`, `events`, or the directory `agent`. */
export const sessionFile = (id: string, name: "ctl" | "plan" | "env" | "events" | "agent" | "budget") =>
  `session/${id}/${name}`;

/** The files of one agent (its directory is `session/ID/agent/NAME`). */
export type AgentFile =
  | "cfg"
  | "checkpoints"
  | "chat"
  | "context"
  | "cost"
  | "ctl"
  | "ctxsz"
  | "activity"
  | "fork"
  | "models"
  | "offset"
  | "outcome"
  | "proc/idx"
  | "prompt"
  | "prompt.prev"
  | "queue"
  | "skills"
  | "state"
  | "statewait"
  | "tail"
  | "turns"
  | "turnwait"
  | "usage";

export const agentFile = (session: string, agent: string, name: AgentFile) =>
  `session/${session}/agent/${agent}/${name}`;

/** A tool process's number at toolsrv (`proc/ID`): 1, 2, 3… */
export function checkProcessId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new TypeError(`'${id}' is not a process id`);
  return id;
}

/** `proc/ID/…`: a file of the agent's tool process `id`. */
export const processFile = (session: string, agent: string, id: number, name: "status" | "output" | "ctl") =>
  `session/${session}/agent/${agent}/proc/${checkProcessId(id)}/${name}`;

/** `prompts/N`: how prompt N's turn ended, once it has. */
export const promptResult = (session: string, agent: string, n: number) =>
  `session/${session}/agent/${agent}/prompts/${n}`;

/** `peer/NAME`: a prompt to the agent NAME (a uname, or a session's id or name for its main agent). */
export function peerFile(name: string): string {
  if (name === "" || name.includes("/") || name === "." || name === "..")
    throw new TypeError(`'${name}' is not an agent's or a session's name`);
  return `peer/${name}`;
}

/** The files of `bypass/`. */
export const BYPASS_PENDING = "bypass/pending";
export const BYPASS_WAIT = "bypass/wait";
export const BYPASS_OPERATIONS = "bypass/operations";

/** A file of bypass request `n`. */
export function bypassFile(
  n: number,
  name: "request" | "decision" | "decisionwait" | "status" | "statuswait" | "output" | "ctl",
): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new TypeError(`'${n}' is not a bypass request's number`);
  return `bypass/${n}/${name}`;
}
