import { Errno } from "@ollie/ninep";
import { each, file, text } from "@ollie/virtfs";
import { checkModel } from "../config/backends.js";
import { GENERATED_NAME, type GeneratedProfile, parseGeneratedProfile } from "../config/generated-profile.js";
import { findIn } from "../config/profiles.js";
import type { Session } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import { fail, failWith } from "./fail.js";

/**
 * `session/ID/agents/`: the profiles the session's agents generated, as `NAME.json`. A member creates one
 * (Tcreate, then its JSON written and checked at clunk: one written wrong is refused and not kept), reads
 * it, replaces it, or removes it. A session made with `agent=NAME` by one of its agents runs it.
 */
export function agentsDir(sessions: Sessions, session: Session, group: string) {
  // Created but not yet written: listed (so the create's open finds it), never run, never saved. Kept on the
  // session, as the tree lets go of this declaration while no client is in the session's directory.
  const pending = session.pendingProfiles;
  const names = () => [...new Set([...session.profiles.keys(), ...pending])].sort();
  const nameOf = (entry: string) => (entry.endsWith(".json") ? entry.slice(0, -".json".length) : undefined);
  const known = (name: string | undefined) =>
    name !== undefined && (session.profiles.has(name) || pending.has(name)) ? name : undefined;

  const write = async (name: string, body: string, writer: string) => {
    try {
      session.profiles.set(name, await checked(sessions, parseGeneratedProfile(body, name), writer));
    } catch (error) {
      if (pending.has(name)) pending.delete(name);
      failWith(error);
    }
    pending.delete(name);
    await session.save();
  };

  return each(
    "agents",
    names,
    (name: string) =>
      file(
        `${name}.json`,
        text(
          () => {
            const profile = session.profiles.get(name);
            return profile ? `${JSON.stringify(profile, null, 2)}\n` : "";
          },
          { write: (body, ctx) => write(name, body, ctx.uname), maxBytes: 64 * 1024 },
        ),
        { mode: 0o664, group },
      ),
    {
      key: (name) => `${name}.json`,
      lookup: (entry) => known(nameOf(entry)),
      create: async (entry) => {
        const name = nameOf(entry);
        if (name === undefined || !GENERATED_NAME.test(name))
          return fail(
            `'${entry}' is not NAME.json with a profile name (a-z, 0-9, '_', '-'; starting with a letter)`,
          );
        if (known(name)) return fail(`${entry} exists`, Errno.EEXIST);
        if (await findIn(sessions.environment.making.profiles.dirs, `${name}.json`))
          return fail(
            `'${name}' is a configured profile: a generated one may not take its name`,
            Errno.EEXIST,
          );
        pending.add(name);
        return name;
      },
      remove: async (name) => {
        pending.delete(name);
        if (session.profiles.delete(name)) await session.save();
      },
      mode: 0o775,
      group,
    },
  );
}

/**
 * A generated profile as it may run: its backend and model known, and no tool that its maker (an agent of
 * the session) may not use itself; a maker limited to some tools passes its limit on when the profile names
 * none.
 */
async function checked(
  sessions: Sessions,
  profile: GeneratedProfile,
  writer: string,
): Promise<GeneratedProfile> {
  const env = sessions.environment;
  if (profile.backend !== undefined) env.making.backends.profile(profile.backend);
  if (profile.model !== undefined)
    await checkModel(env.making.backends, profile.backend, profile.model, env.making.models);
  const maker = sessions.agent(writer);
  const allowed = maker && (await maker.profileInUse()).config.tools;
  if (!allowed) return profile;
  const tools = profile.tools ?? allowed;
  const beyond = [...tools, ...(profile.autoLoad ?? [])].filter((t) => !allowed.includes(t));
  if (beyond.length > 0)
    throw new Error(`tools beyond what ${writer} may use: ${[...new Set(beyond)].join(", ")}`);
  return { ...profile, tools };
}
