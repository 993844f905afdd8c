import type { PersistedSession } from "@ollie/agent-core";
import { emptyTotals } from "@ollie/agent-core/sessions";
import type { AgentSlot } from "./agent-slot.js";
import { repairHistory } from "./repair-history.js";
import type { Session } from "./session.js";
import type { Sessions } from "./sessions.js";

/** What `fork` is asked for: the new session's name, and whether it takes the task state alone. */
export interface ForkSpec {
  name?: string;
  /** The history stays behind: the fork starts clean, with the task state only (a narrow-context agent). */
  clean: boolean;
}

/** Reads `[--clean] [NAME]`, what `fork` takes on an agent's ctl and in its `fork` file. */
export function parseForkSpec(text: string): ForkSpec {
  let rest = text.trim();
  const clean = /^--clean(\s|$)/.test(rest);
  if (clean) rest = rest.slice("--clean".length).trim();
  if (rest.startsWith("-")) throw new Error(`fork takes [--clean] [NAME], not '${rest.split(/\s+/)[0]}'`);
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(rest)) throw new Error("a session's name is one line of text");
  return rest === "" ? { clean } : { name: rest, clean };
}

/**
 * Makes a new session from a checkpoint of `slot`: the same profile, backend, model, skills, directory,
 * environment and plan, and — paused, as a restored session is — the agent's history and task state as
 * they are now (a turn under way is cut where it is and answered as interrupted), or with `clean` the task
 * state alone. Its usage starts at nothing. It is made for `creator` as `session/new` makes one (so an
 * agent's fork is its child, within the same limits). The forked agent's chat says where the fork went.
 */
export async function forkAgent(
  sessions: Sessions,
  session: Session,
  slot: AgentSlot,
  spec: ForkSpec,
  creator: string,
): Promise<Session> {
  const checkpoint = slot.toSaved();
  const fork = await sessions.create(
    {
      agent: slot.choices.profile,
      cwd: session.cwd,
      name: spec.name ?? `${session.name}-fork`,
      ...(slot.choices.backend !== undefined && { backend: slot.choices.backend }),
      ...(slot.choices.model !== undefined && { model: slot.choices.model }),
      ...(session.profiles.has(slot.choices.profile) && {
        profiles: { [slot.choices.profile]: session.profiles.get(slot.choices.profile)! },
      }),
    },
    creator,
  );
  try {
    const main = fork.agents.get("main")!;
    main.adopt({
      session: checkpoint.session && forkedHistory(checkpoint.session, main.uname, fork.id, spec.clean),
      skills: slot.skills,
    });
    fork.plan = session.plan;
    fork.env = { ...session.env };
    await fork.save();
  } catch (error) {
    await sessions.kill(fork.id).catch(() => undefined);
    throw error;
  }
  session.events.publish("session.fork", {
    agent: slot.name,
    to: fork.id,
    name: fork.name,
    clean: spec.clean,
  });
  slot.shown.chat.note(
    `· forked${spec.clean ? " (the task state alone)" : ""} to session ${fork.id} (${fork.name})`,
  );
  return fork;
}

/** The saved agent a fork starts from: `from`'s history (or none) and task state, under the new names. */
function forkedHistory(from: PersistedSession, uname: string, id: string, clean: boolean): PersistedSession {
  return {
    version: 1,
    id,
    agentId: uname,
    name: "main",
    ...(from.agent !== undefined && { agent: from.agent }),
    ...(from.cwd !== undefined && { cwd: from.cwd }),
    messages: clean ? [] : repairHistory(from.messages).messages,
    taskState: structuredClone(from.taskState),
    usage: emptyTotals(),
    savedAt: new Date().toISOString(),
  };
}
