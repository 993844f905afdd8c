import { NinepError } from "@ollie/ninep";
import { buildTree, clone, ctl, dir, each, file, text, type VirtualTree } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";
import type { Session, SessionSpec } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import { agentTree } from "./agent-tree.js";

/** Reads a session spec: `key=value` words (agent, cwd, backend, model, name) or a JSON object. */
export function parseSpec(spec: string): SessionSpec {
  const text = spec.trim();
  const raw: Record<string, unknown> = text.startsWith("{")
    ? (JSON.parse(text) as Record<string, unknown>)
    : Object.fromEntries(
        text
          .split(/\s+/)
          .filter(Boolean)
          .map((word) => {
            const eq = word.indexOf("=");
            if (eq <= 0) throw new NinepError(`a session spec is key=value words, not '${word}'`);
            return [word.slice(0, eq), word.slice(eq + 1)];
          }),
      );
  const out: SessionSpec = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!["agent", "profile", "cwd", "backend", "model", "name"].includes(key)) {
      throw new NinepError(`unknown key '${key}' in the session spec (agent, cwd, backend, model, name)`);
    }
    if (typeof value !== "string" || value === "")
      throw new NinepError(`'${key}' in the session spec needs a value`);
    (out as Record<string, string>)[key === "profile" ? "agent" : key] = value;
  }
  return out;
}

/** The whole namespace olliesrv serves. See NAMESPACE.md. */
export function ollieTree(sessions: Sessions, owner: string): VirtualTree {
  const env = sessions.environment;
  return buildTree(
    dir("/", [
      file(
        "backends",
        text(() => {
          const conf = env.backends.conf;
          return [...conf.profiles.values()]
            .map((p) => `${p.name === conf.defaultProfile ? "*" : " "} ${p.name}\t${p.type}\t${p.model}\n`)
            .join("");
        }),
      ),
      file(
        "models",
        text(async () => {
          const backend = await env.backends.get();
          const models = await backend.models().catch((e: unknown) => {
            throw new NinepError(`${backend.name}: ${(e as Error).message}`);
          });
          return models.map((m) => `${m.id}${m.contextLength ? `\t${m.contextLength}` : ""}\n`).join("");
        }),
      ),
      each(
        "session",
        () => ["new", "idx", ...sessions.list()] as Array<"new" | "idx" | Session>,
        (item) =>
          item === "new"
            ? newFile(sessions)
            : item === "idx"
              ? idxFile(sessions)
              : sessionTree(sessions, item),
        {
          key: (item) => (typeof item === "string" ? item : item.id),
          lookup: (name) => (name === "new" || name === "idx" ? name : sessions.get(name)),
        },
      ),
    ]),
    { owner },
  );
}

/** `session/new`: write a spec, read back the new session's id on the same fid. */
function newFile(sessions: Sessions) {
  return file(
    "new",
    clone(async (spec) => (await sessions.create(parseSpec(spec))).id),
    0o666,
  );
}

/** `session/idx`: one line per session — id, name, the main agent's state, cwd. */
function idxFile(sessions: Sessions) {
  return file(
    "idx",
    text(() =>
      sessions
        .list()
        .map((s) => `${s.id}\t${s.name}\t${s.agents.get("main")?.state.get() ?? "idle"}\t${s.cwd}\n`)
        .join(""),
    ),
  );
}

function sessionTree(sessions: Sessions, session: Session) {
  return dir(session.id, [
    file(
      "plan",
      text(() => session.plan, {
        write: async (body) => {
          session.plan = body;
          await session.save();
        },
      }),
      0o664,
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
              if (eq <= 0) throw new NinepError(`env takes NAME=value lines, not '${line}'`);
              env[line.slice(0, eq).trim()] = line.slice(eq + 1);
            }
            session.env = env;
            await session.save();
          },
        },
      ),
      0o664,
    ),
    file(
      "ctl",
      ctl({
        rename: async (_a, c) => {
          session.name = c.rest.trim() || fail("rename needs a name");
          await session.save();
        },
        cd: async (_a, c) => {
          await session
            .changeDirectory(c.rest.trim() || fail("cd needs a directory"))
            .catch((e: unknown) => fail((e as Error).message));
        },
        kill: () => sessions.kill(session.id),
      }),
      0o664,
    ),
    each(
      "agent",
      () => session.agents.values(),
      (slot: AgentSlot) => agentTree(sessions, session, slot),
      { key: (slot) => slot.name, lookup: (name) => session.agents.get(name) },
    ),
  ]);
}

const fail = (message: string): never => {
  throw new NinepError(message);
};
