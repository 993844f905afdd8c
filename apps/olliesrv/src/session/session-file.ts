import { mkdir, readdir, readFile, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { PersistedSession } from "@ollie/agent-core";
import { persistedSessionSchema } from "@ollie/agent-core/sessions";
import { ConfigError, checkDocument, parseConfigText, writeFileAtomic } from "@ollie/config-file";
import { z } from "zod";
import {
  GENERATED_NAME,
  type GeneratedProfile,
  generatedProfileSchema,
} from "../config/generated-profile.js";
import { AGENT_NAME, PROFILE_NAME, SESSION_ID } from "../names.js";
import { parseRemoteTarget } from "../remote/remote-target.js";
import { type SessionMcpServers, sessionMcpServersSchema } from "./mcp-servers.js";
import { type SavedBudget, savedBudgetSchema } from "./session-budget.js";

/** One agent of a session as it is saved. */
export interface SavedAgent {
  name: string;
  profile: string;
  backend?: string;
  model?: string;
  /** The step limit it was given (`cfg`'s `maxsteps`), when it differs from its profile's. */
  maxSteps?: number;
  skills?: string[];
  lastPrompt?: string;
  /** The last ticket given to a prompt (see PromptTickets), so numbers are never reused. */
  prompts?: number;
  /** Its turns finished so far (the `turns` file), and how the last one ended (the `outcome` file). */
  turns?: { count: number; last?: string };
  /**
   * The agent's history; absent for an agent that was never prompted. What the agent recorded after the
   * file was written is in its journal beside it (see SessionStore).
   */
  session?: PersistedSession;
}

/** A session as it is saved: `$XDG_DATA_HOME/ollie/sessions/{id}.json`. */
export interface SessionFile {
  version: 1;
  id: string;
  name: string;
  cwd: string;
  env: Record<string, string>;
  plan: string;
  created: string;
  /** When something last ran in it (absent in files saved before it was kept: `created` stands for it). */
  active?: string;
  paused: boolean;
  /** The agent that spawned this session (absent when a person made it). */
  parent?: string;
  /** How many spawns deep (0: made by a person). */
  depth?: number;
  /** False when the parent waits for the session's turns itself and wants no callbacks. */
  callback?: false;
  /** Principals outside the session allowed to write its files (ctl grant). */
  grants?: string[];
  /** Profiles its agents generated, by name. */
  profiles?: Record<string, GeneratedProfile>;
  /** The ssh destination its tools run on (its directory there is `cwd`). */
  remote?: string;
  /** Its own MCP servers. */
  mcpServers?: SessionMcpServers;
  /** What it has spent and may spend (absent in files saved before budgets). */
  budget?: SavedBudget;
  agents: SavedAgent[];
}

const profileName = z.string().refine((name) => PROFILE_NAME.test(name) && !name.includes(".."), {
  message: "not a profile name",
});

const schema = z.object({
  version: z.literal(1),
  id: z.string().regex(SESSION_ID, "not a session id"),
  name: z.string(),
  cwd: z.string(),
  env: z.record(z.string(), z.string()),
  plan: z.string(),
  created: z.string(),
  active: z.iso.datetime().optional(),
  paused: z.boolean(),
  parent: z.string().optional(),
  depth: z.number().int().nonnegative().optional(),
  callback: z.literal(false).optional(),
  grants: z.array(z.string()).optional(),
  profiles: z.record(z.string().regex(GENERATED_NAME), generatedProfileSchema).optional(),
  remote: z
    .string()
    .refine((text) => {
      try {
        return parseRemoteTarget(text).dir === undefined;
      } catch {
        return false;
      }
    }, "not an ssh destination ([user@]host)")
    .optional(),
  mcpServers: sessionMcpServersSchema.optional(),
  budget: savedBudgetSchema.optional(),
  agents: z.array(
    z.object({
      name: z.string().regex(AGENT_NAME, "not an agent name"),
      profile: profileName,
      backend: z.string().optional(),
      model: z.string().optional(),
      maxSteps: z.number().int().positive().optional(),
      skills: z.array(z.string()).optional(),
      lastPrompt: z.string().optional(),
      prompts: z.number().int().nonnegative().optional(),
      turns: z.object({ count: z.number().int().nonnegative(), last: z.string().optional() }).optional(),
      // The agent's history is checked as strictly as agent-core checks it: a file that passes restores.
      session: persistedSessionSchema.optional(),
    }),
  ),
});

/** Writes a session file atomically (temporary file, flushed, renamed over the old one). */
export async function writeSessionFile(dir: string, session: SessionFile): Promise<void> {
  await writeFileAtomic(join(dir, `${session.id}.json`), `${JSON.stringify(session)}\n`);
}

/** A session file that cannot be restored; the message places each problem in the file. */
export class SessionRestoreError extends ConfigError {
  override readonly name = "SessionRestoreError";
}

/** Checks a session file's text; throws SessionRestoreError naming the line, column and key of what is wrong. */
function parseSessionFile(text: string, file: string): SessionFile {
  const session = checkDocument(
    schema,
    parseConfigText(text, file, "json", SessionRestoreError),
    SessionRestoreError,
  );
  if (`${session.id}.json` !== basename(file)) {
    throw new SessionRestoreError(file, { key: "id", problem: `${session.id} is not the file's name` });
  }
  return session as SessionFile;
}

/**
 * Moves a session file that cannot be used to `corruptDir` (never deleting it), with its agents' journals,
 * and says so: one bad file costs its own session, never the others.
 */
export async function quarantineSessionFile(
  file: string,
  corruptDir: string,
  error: unknown,
  log: (line: string) => void,
): Promise<void> {
  await mkdir(corruptDir, { recursive: true, mode: 0o700 });
  const id = basename(file, ".json");
  const now = Date.now();
  const aside = join(corruptDir, `${id}.${now}.json`);
  await rename(file, aside).catch(() => {});
  const journals = (await readdir(dirname(file)).catch(() => [] as string[])).filter(
    (n) => n.startsWith(`${id}.`) && n.endsWith(".journal"),
  );
  for (const name of journals)
    await rename(
      join(dirname(file), name),
      join(corruptDir, `${basename(name, ".journal")}.${now}.journal`),
    ).catch(() => {});
  // A ConfigError's message starts with the file and the place in it; any other error gets the file first.
  const problem = error instanceof ConfigError ? error.message : `${file}: ${(error as Error).message}`;
  log(`unreadable session file ${problem}; moved it to ${aside}`);
}

/**
 * Reads every session file in `dir`, concurrently. A file that does not parse or check — ids, agent and
 * profile names and each agent's whole history included, since paths and principals are made of them and a
 * restored agent runs on the history — is quarantined; the rest come back.
 */
export async function readSessionFiles(
  dir: string,
  corruptDir: string,
  log: (line: string) => void,
): Promise<SessionFile[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".json"));
  const read = await Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      try {
        return parseSessionFile(await readFile(file, "utf8"), file);
      } catch (error) {
        await quarantineSessionFile(file, corruptDir, error, log);
        return undefined;
      }
    }),
  );
  return read.filter((s): s is SessionFile => s !== undefined);
}
