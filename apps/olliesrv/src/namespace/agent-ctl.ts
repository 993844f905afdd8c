import { Errno } from "@ollie/ninep";
import { ctl } from "@ollie/virtfs";
import { checkProfileName } from "../names.js";
import { parseRemoteTarget, type RemoteTarget } from "../remote/remote-target.js";
import type { AgentSlot } from "../session/agent-slot.js";
import { stampSender } from "../session/callback.js";
import { forkAgent, parseForkSpec } from "../session/fork.js";
import type { Session } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import type { SessionEnvironment } from "../session/slot-context.js";
import { profileStepLimit } from "../session/step-limit.js";
import { rewindCommand } from "./checkpoint-files.js";
import { fail, failWith } from "./fail.js";

const idle = (slot: AgentSlot, what: string) => {
  if (slot.agent && slot.agent.state !== "idle")
    fail(`cannot ${what} while a turn runs: stop it first`, Errno.EBUSY);
};

/** What an agent's ctl and cfg files can do to it. Each throws an error saying why when it cannot. */
export function agentOperations(sessions: Sessions, session: Session, slot: AgentSlot) {
  const env = sessions.environment;
  const owner = env.policy.owner;
  /** `inject` adds to what the running turn has not taken yet; `rewrite` replaces it (InjectRewrite). */
  const inject = async (text: string, by: string, how: "inject" | "rewrite") => {
    notItself(by, slot, env);
    // An injection joins the running turn: that turn is now as many hops from a person as the injector's.
    const hops = slot.hopsFrom(by);
    const agent = await slot.activate();
    const stamped = stampSender(text || fail(`${how} needs text`), by, owner);
    const taken = how === "inject" ? agent.inject(stamped) : agent.injectRewrite(stamped);
    if ("injected" in taken) return slot.shown.joined(hops);
    // No turn ran: the text was submitted as a prompt of its own (with no number), behind any that wait.
    slot.shown.queued(hops, taken.position, { ticket: undefined, from: by, text });
  };
  return {
    stop: () => {
      if (!slot.agent?.interrupt("stopped from ctl")) fail("nothing is running");
    },
    compact: async () => {
      const agent = await slot.activate();
      if (!(await agent.compact())) fail("the history was not compacted (see chat for why)");
    },
    model: (model: string) => slot.useModel(model || fail("model needs a name: model NAME")),
    backend: (name: string) =>
      slot.useBackend(name || fail("backend needs a backends.conf profile: backend NAME")),
    maxSteps: async (value: string, by: string = owner) => {
      await limitSteps(slot, value, by, env);
      await session.save();
    },
    agent: async (profile: string) => {
      if (!profile) fail("agent needs a profile: agent NAME");
      checkProfileName(profile);
      await session.profile(profile);
      idle(slot, "switch profile");
      await slot.reset(profile);
      await session.save();
    },
    clear: async () => {
      idle(slot, "clear the history");
      await slot.reset(slot.choices.profile);
      await session.save();
    },
    cd: (dir: string, by: string = owner) => moveSession(session, dir, by, env),
    queue: async (prompt: string, by: string = owner) => {
      notItself(by, slot, env);
      await slot.submit(prompt || fail("queue needs a prompt"), by);
    },
    inject: (text: string, by: string = owner) => inject(text, by, "inject"),
    rewrite: (text: string, by: string = owner) => inject(text, by, "rewrite"),
    rename: async (name: string) => {
      session.name = name || fail("rename needs a name");
      await session.save();
    },
    kill: () => sessions.kill(session.id),
    killProcess: async (id: string) => {
      const conn = slot.toolsrv ?? fail("the agent has no tool processes", Errno.ESRCH);
      const n = Number(id);
      if (!Number.isInteger(n) || !(await conn.process(n)))
        fail(`no process ${id} of this agent (see proc/idx)`, Errno.ESRCH);
      await conn.kill(n);
    },
    skill: async (op: string, name: string) => {
      if (op !== "load" && op !== "unload") fail("skill load NAME or skill unload NAME");
      const skill =
        env.making.skills().get(name) ??
        fail(`no skill '${name}' (the skills file lists them)`, Errno.ENOENT);
      await slot.setSkills(
        op === "load" ? [...slot.skills, skill.name] : slot.skills.filter((s) => s !== skill.name),
      );
    },
  };
}

/**
 * An agent's ctl: the slash commands of an interactive session, one per line as `command args`. A bad
 * command is refused with an error saying why.
 */
export function agentCtl(sessions: Sessions, session: Session, slot: AgentSlot) {
  const op = agentOperations(sessions, session, slot);
  return ctl({
    stop: () => op.stop(),
    compact: () => op.compact(),
    model: (_a, c) => op.model(c.rest.trim()),
    backend: (_a, c) => op.backend(c.rest.trim()),
    agent: (_a, c) => op.agent(c.rest.trim()),
    clear: () => op.clear(),
    cd: (_a, c) => op.cd(c.rest.trim(), c.uname),
    queue: (_a, c) => op.queue(c.rest.trim(), c.uname),
    inject: (_a, c) => op.inject(c.rest.trim(), c.uname),
    rewrite: (_a, c) => op.rewrite(c.rest.trim(), c.uname),
    rename: (_a, c) => op.rename(c.rest.trim()),
    kill: () => op.kill(),
    skill: ([action = "", name = ""]) => op.skill(action, name),
    proc: ([action = "", id = ""]) => (action === "kill" ? op.killProcess(id) : fail("proc kill ID")),
    rewind: (words, c) => rewindCommand(sessions, session, slot, ["rewind", ...words], c.uname),
    undo: (words, c) => rewindCommand(sessions, session, slot, ["undo", ...words], c.uname),
    // The new session's id is in the chat's `· forked` line; the agent's `fork` file answers it instead.
    fork: async (_a, c) => {
      await forkAgent(sessions, session, slot, parseForkSpec(c.rest), c.uname);
    },
  });
}

/** `cd DIR` from either ctl. Only the owner moves a session, since its directory is what its tools may write. */
export async function moveSession(session: Session, dir: string, by: string, env: SessionEnvironment) {
  ownerMoves("cd", by, env);
  await session.changeDirectory(dir || fail("cd needs a directory"));
}

/** `remote [USER@]HOST[:DIR]` moves a session's tools to a host, `local DIR` back here; the owner only. */
export async function moveSessionHost(
  session: Session,
  command: "remote" | "local",
  operand: string,
  by: string,
  env: SessionEnvironment,
) {
  ownerMoves(command, by, env);
  if (command === "local") return session.changeHost(undefined, operand || fail("local needs a directory"));
  const target = ((): RemoteTarget => {
    try {
      return parseRemoteTarget(operand || fail("remote needs [user@]host[:dir]"));
    } catch (error) {
      return failWith(error);
    }
  })();
  await session.changeHost(target);
}

/** Only the owner moves a session: where it is decides what its tools may write. */
function ownerMoves(command: string, by: string, env: SessionEnvironment): void {
  if (by === env.policy.owner) return;
  const why = `only ${env.policy.owner} may move a session: its directory is what its tools may write`;
  env.policy.audit(`refused ${command} by ${by}: ${why}`, by);
  fail(why, Errno.EPERM);
}

/** The most rounds of tool calls a turn may be given through `cfg`. */
const MOST_STEPS = 10_000;

/**
 * `maxsteps=N` on `cfg`: the rounds of tool calls each turn may make from now (`ollie run --max-turns`). Only
 * the owner may give more than the profile does: an agent may tighten its own limit, never lift it.
 */
async function limitSteps(slot: AgentSlot, value: string, by: string, env: SessionEnvironment) {
  const steps = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(steps >= 1 && steps <= MOST_STEPS))
    fail(`maxsteps takes a number of rounds from 1 to ${MOST_STEPS}, not '${value}'`);
  const profile = await profileStepLimit(slot);
  if (by !== env.policy.owner && steps > profile) {
    const why = `only ${env.policy.owner} may give more steps than the profile's ${profile}`;
    env.policy.audit(`refused maxsteps by ${by}: ${why}`, by);
    fail(why, Errno.EPERM);
  }
  await slot.choices.useMaxSteps(steps, profile, slot.agent);
}

/** Refuses an agent a prompt to itself, by any path: no agent may drive itself in a loop. */
function notItself(by: string, slot: AgentSlot, env: SessionEnvironment): void {
  if (by !== slot.uname) return;
  env.policy.audit(`refused a prompt from ${by} to itself`, by);
  fail("an agent may not prompt itself", Errno.EPERM);
}
