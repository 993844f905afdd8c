import {
  buildTree,
  clone,
  ctl,
  dir,
  each,
  file,
  type NodeSpec,
  type PermissionDenial,
  text,
  type VirtualTree,
  wait,
} from "@ollie/virtfs";
import { BackendChecks, checkLine } from "../config/backend-check.js";
import type { AgentSlot } from "../session/agent-slot.js";
import type { Session, SessionSpec } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import { moveSession, moveSessionHost } from "./agent-ctl.js";
import { agentTree } from "./agent-tree.js";
import { agentsDir } from "./agents-dir.js";
import { eventsFile } from "./events-file.js";
import { fail, failWith } from "./fail.js";
import { modelsFile } from "./models-file.js";
import { promptFile } from "./prompt-file.js";
import { setBudget } from "./session-budget-ctl.js";
import { killSession } from "./session-kill.js";
import { parseSpec } from "./session-spec.js";
import type { DaemonStats } from "./stats-file.js";

/**
 * The whole namespace olliesrv serves. See NAMESPACE.md. Every session is a group: its agents, the agent
 * that spawned it, whoever it granted, and the owner write its files; everyone else may only read them.
 */
export function ollieTree(sessions: Sessions, options: TreeOptions): VirtualTree {
  const { owner, onDenied } = options;
  const env = sessions.environment;
  const checks = new BackendChecks();
  return buildTree(
    dir("/", [
      file(
        "backends",
        text(() => {
          const conf = env.making.backends.conf;
          return [...conf.profiles.values()]
            .map((p) => `${p.name === conf.defaultProfile ? "*" : " "} ${p.name}\t${p.type}\t${p.model}\n`)
            .join("");
        }),
      ),
      // The owner's alone: a read runs every key_cmd and sends every key to its backend (one check at a
      // time, shared, and kept a few seconds). A stat does not (size: false): it reports 0.
      file(
        "backends.check",
        text(
          async () => {
            const pool = env.making.backends;
            const checked = await checks.check(pool);
            return `# ${pool.conf.file}\n${checked.map(checkLine).join("")}`;
          },
          { size: false },
        ),
        0o400,
      ),
      // The daemon's own commands: the owner's alone.
      file(
        "ctl",
        ctl({
          reload: async () => {
            try {
              await options.reload();
            } catch (error) {
              failWith(error);
            }
          },
        }),
        0o644,
      ),
      // The default backend's models, as fetched at start (or when backends.conf changed).
      modelsFile(env, async () => undefined),
      // The agent profiles sessions may be made with, and what each is for (what `route` chooses among);
      // read from their files at each open, not at each stat.
      file(
        "profiles",
        text(
          async () =>
            (await env.making.profiles.list())
              .map(
                (p) => `${p.name}\t${p.problem ? `broken: ${oneLine(p.problem)}` : (p.description ?? "-")}\n`,
              )
              .join(""),
          { size: false },
        ),
      ),
      each(
        "session",
        () => [...INDEX_FILES, ...sessions.list()],
        (item) =>
          item === "new"
            ? newFile(sessions)
            : item === "idx"
              ? file(
                  "idx",
                  text(() => sessions.index.get()),
                )
              : item === "idxwait"
                ? file("idxwait", wait(sessions.index, { format: (text) => text }))
                : sessionTree(sessions, item),
        {
          key: (item) => (typeof item === "string" ? item : item.id),
          lookup: (name) => (isIndexFile(name) ? name : sessions.get(name)),
        },
      ),
      peerDir(sessions),
      ...(options.extra ?? []),
      // Made after a full garbage collection: at each open, not at each stat.
      file(
        "stats",
        text(() => options.stats.text(), { size: false }),
      ),
    ]),
    {
      owner,
      inGroup: (uname, group) => uname === owner || sessions.get(group)?.admits(uname) === true,
      onDenied,
    },
  );
}

export interface TreeOptions {
  /** The human's uname: a member of every session's group. */
  owner: string;
  /** Told of every permission refusal (the audit trail). */
  onDenied: (denial: PermissionDenial) => void;
  /** What `stats` shows. */
  stats: DaemonStats;
  /** More top-level nodes (the bypass broker's `bypass/`). */
  extra?: readonly NodeSpec[];
  /** Reads backends.conf and the agent profiles again; rejects with what is wrong with a broken file. */
  reload: () => Promise<void>;
}

/** A problem's text on one line, as a line-per-entry file needs it. */
const oneLine = (text: string) => text.replace(/\s+/g, " ");

/** `session/new`: write a spec, read back the new session's id on the same fid. */
function newFile(sessions: Sessions) {
  return file(
    "new",
    clone(async (text, ctx) => {
      let spec: SessionSpec;
      try {
        spec = parseSpec(text);
      } catch (error) {
        failWith(error);
      }
      const session = await sessions.create(spec, ctx.uname);
      return session.id;
    }),
    0o666,
  );
}

/**
 * The files of `session/` beside the sessions: `new`; `idx`, one line per session (see SessionIndex); and
 * `idxwait`, whose read blocks until that text differs from what the fid last returned, then returns it all.
 */
const INDEX_FILES = ["new", "idx", "idxwait"] as const;

const isIndexFile = (name: string): name is (typeof INDEX_FILES)[number] =>
  (INDEX_FILES as readonly string[]).includes(name);

function sessionTree(sessions: Sessions, session: Session) {
  const group = session.id;
  return dir(session.id, [
    file(
      "plan",
      text(() => session.plan, {
        write: async (body) => {
          session.plan = body;
          await session.save();
        },
      }),
      { mode: 0o664, group },
    ),
    file(
      "env",
      text(
        () =>
          Object.entries(session.env)
            .map(([k, v]) => `${k}=${v}\n`)
            .join(""),
        {
          write: async (body) => {
            const env: Record<string, string> = {};
            for (const line of body.split("\n").filter((l) => l.trim() !== "")) {
              const eq = line.indexOf("=");
              if (eq <= 0) fail(`env takes NAME=value lines, not '${line}'`);
              env[line.slice(0, eq).trim()] = line.slice(eq + 1);
            }
            session.env = env;
            await session.save();
          },
        },
      ),
      // Only the owner: the environment fills the sandbox's templates ({TMPDIR}, {HOME}…), so it is part
      // of what the tools may touch.
      { mode: 0o644, group },
    ),
    file(
      "ctl",
      ctl({
        rename: async (_a, c) => {
          session.name = c.rest.trim() || fail("rename needs a name");
          await session.save();
        },
        cd: (_a, c) => moveSession(session, c.rest.trim(), c.uname, sessions.environment),
        remote: (_a, c) => moveSessionHost(session, "remote", c.rest.trim(), c.uname, sessions.environment),
        local: (_a, c) => moveSessionHost(session, "local", c.rest.trim(), c.uname, sessions.environment),
        kill: (_a, c) => killSession(sessions, session, c.rest),
        grant: async (_a, c) => {
          session.grants.add(c.rest.trim() || fail("grant needs a uname"));
          await session.save();
        },
        revoke: async (_a, c) => {
          if (!session.grants.delete(c.rest.trim())) fail(`'${c.rest.trim()}' was not granted`);
          await session.save();
        },
        budget: (_a, c) => setBudget(sessions.environment, session, c.rest, c.uname),
      }),
      { mode: 0o664, group },
    ),
    file(
      "budget",
      text(() => session.budget.text()),
      { mode: 0o444, group },
    ),
    // The session's events as JSON lines, filtered by topic (see NAMESPACE.md).
    eventsFile(session, group),
    agentsDir(sessions, session, group),
    each(
      "agent",
      () => session.agents.values(),
      (slot: AgentSlot) => agentTree(sessions, session, slot, group),
      { key: (slot) => slot.name, lookup: (name) => session.agents.get(name) },
    ),
  ]);
}

/**
 * `peer/`: every agent by its uname (and a session's main agent by the session's id or name). A write is
 * a prompt to that agent from the writer, delivered without waiting for the turn.
 */
function peerDir(sessions: Sessions) {
  type Peer = { name: string; slot: AgentSlot };
  const allAgents = (): Peer[] =>
    sessions.list().flatMap((s) => [...s.agents.values()].map((slot) => ({ name: slot.uname, slot })));
  const byName = (name: string): Peer | undefined => {
    const slot =
      sessions.agent(name) ??
      (sessions.get(name) ?? sessions.list().find((s) => s.name === name))?.agents.get("main");
    return slot && { name, slot };
  };
  return each("peer", allAgents, (peer: Peer) => promptFile(peer.name, peer.slot), {
    key: (peer) => peer.name,
    lookup: byName,
  });
}
