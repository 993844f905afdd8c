import { Errno } from "@ollie/ninep";
import { checkpointsText } from "../checkpoints/checkpoints-text.js";
import { CheckpointError, CheckpointsUnavailable } from "../checkpoints/errors.js";
import { RewindRefused, type RewindScope, rewindAgent, undoTurn } from "../checkpoints/rewind-agent.js";
import type { AgentSlot } from "../session/agent-slot.js";
import type { Session } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import { fail, failWith } from "./fail.js";

const checkpointsOf = (sessions: Sessions, session: Session, slot: AgentSlot) =>
  sessions.environment.making.checkpoints.forAgent(session, slot.name);

/** The other sessions on this machine in `session`'s directory: they share its checkpoints. */
const sameDirectory = (sessions: Sessions, session: Session) =>
  sessions.list().filter((s) => s !== session && !s.remote && s.cwd === session.cwd);

/** An agent's `checkpoints` file (see checkpointsText). */
export async function checkpointsFile(
  sessions: Sessions,
  session: Session,
  slot: AgentSlot,
): Promise<string> {
  const checkpoints = checkpointsOf(sessions, session, slot);
  const sharedWith = sameDirectory(sessions, session).map((s) => s.id);
  const heading = { directory: session.cwd, sharedWith };
  if (checkpoints.unavailable)
    return checkpointsText({ ...heading, unavailable: checkpoints.unavailable }, []);
  try {
    return checkpointsText(heading, await checkpoints.list());
  } catch (error) {
    if (error instanceof CheckpointsUnavailable)
      return checkpointsText({ ...heading, unavailable: error.reason }, []);
    throw error;
  }
}

/**
 * `rewind N [files|chat|both]` and `undo [files|chat|both]` on an agent's ctl: the owner's alone, since a
 * rewind writes the directory and the conversation outside any sandbox, and never while a turn runs.
 */
export async function rewindCommand(
  sessions: Sessions,
  session: Session,
  slot: AgentSlot,
  words: readonly string[],
  by: string,
): Promise<void> {
  const [command, ...rest] = words;
  const owner = sessions.environment.policy.owner;
  if (by !== owner)
    fail(`only ${owner} may ${command}: it changes the directory outside any sandbox`, Errno.EPERM);
  // Any agent working in the directory — this one, another of its session's, another session's — would
  // find its files changed under it.
  const busy = [session, ...sameDirectory(sessions, session)]
    .flatMap((s) => [...s.agents.values()])
    .find((other) => other.agent && other.agent.state !== "idle");
  if (busy === slot) fail(`cannot ${command} while a turn runs: stop it first`, Errno.EBUSY);
  if (busy)
    fail(
      `cannot ${command} while ${busy.uname} runs a turn in the same directory: stop it first`,
      Errno.EBUSY,
    );
  const n = command === "rewind" ? Number(rest.shift()) : undefined;
  if (n !== undefined && !(Number.isInteger(n) && n > 0))
    fail("rewind N [files|chat|both]: N a checkpoint's number");
  const scope = rest.shift() ?? "files";
  if (!["files", "chat", "both"].includes(scope) || rest.length > 0)
    fail(`${command} takes files, chat or both after it, not '${[scope, ...rest].join(" ")}'`);
  const agent = {
    activate: () => slot.activate(),
    note: (line: string) => slot.shown.chat.note(line),
    save: () => session.save(),
  };
  const checkpoints = checkpointsOf(sessions, session, slot);
  try {
    await (n === undefined
      ? undoTurn(checkpoints, agent, scope as RewindScope)
      : rewindAgent(checkpoints, agent, n, scope as RewindScope));
  } catch (error) {
    if (error instanceof RewindRefused || error instanceof CheckpointError) failWith(error);
    throw error;
  }
}
