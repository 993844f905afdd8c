import { ReplyFormatError } from "../errors.js";
import { type AgentState, parseState } from "./agent-state.js";

/** A session as `session/idx` lists it. */
export interface SessionEntry {
  id: string;
  /** Its name (its id when it was never named). */
  name: string;
  /** Its main agent's state. */
  state: AgentState;
  cwd: string;
}

/** A model as a `models` file lists it. */
export interface ModelInfo {
  id: string;
  /** Its context window in tokens, where known. */
  contextLength?: number;
  /** What the provider says of it: `out=N`, `tools` or `no-tools`, `vision`, `premium=X`. */
  traits: string[];
}

/** An agent profile sessions may be made with (the root's `profiles`). */
export interface ProfileInfo {
  name: string;
  /** What it is for, when its file says. */
  description?: string;
  /** What is wrong with its file, when it is broken. */
  problem?: string;
}

/** A backends.conf profile as olliesrv read it last (the root's `backends`). */
export interface BackendInfo {
  name: string;
  type: string;
  model: string;
  isDefault: boolean;
}

/** How a backend answered olliesrv's check (`backends.check`). */
export type BackendStatus = "ok" | "no-model" | "no-answer" | "no-key" | "key-refused" | "error";

const BACKEND_STATUSES: readonly string[] = ["ok", "no-model", "no-answer", "no-key", "key-refused", "error"];

export interface BackendCheck extends BackendInfo {
  status: BackendStatus;
  /** What the check found, for a person (`3 models (first, …)`, `key_env names X, which is not set`). */
  detail: string;
}

/** Every backend checked, and the backends.conf they come from. */
export interface BackendChecks {
  file: string;
  backends: BackendCheck[];
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

export function parseSessionIndex(text: string, path: string): SessionEntry[] {
  return lines(text).map((line) => {
    const [id, name, state, ...cwd] = line.split("\t");
    if (!id || name === undefined || state === undefined || cwd.length === 0)
      throw new ReplyFormatError(path, line, "not a session's line");
    return { id, name, state: parseState(state, path), cwd: cwd.join("\t") };
  });
}

export function parseModels(text: string): ModelInfo[] {
  return lines(text).map((line) => {
    const [id = "", window, traits] = line.split("\t");
    const contextLength = window && window !== "-" ? Number(window) : Number.NaN;
    return {
      id,
      ...(!Number.isNaN(contextLength) && { contextLength }),
      traits: traits ? traits.split(" ").filter(Boolean) : [],
    };
  });
}

export function parseProfiles(text: string): ProfileInfo[] {
  return lines(text).map((line) => {
    const tab = line.indexOf("\t");
    const name = tab < 0 ? line : line.slice(0, tab);
    const about = tab < 0 ? "-" : line.slice(tab + 1);
    if (about.startsWith("broken: ")) return { name, problem: about.slice("broken: ".length) };
    return about === "-" ? { name } : { name, description: about };
  });
}

/** A skill an agent may load (a line of its `skills`). */
export interface SkillInfo {
  name: string;
  description: string;
  /** In the agent's system prompt now. */
  loaded: boolean;
}

/** `* name\tdescription` (a space instead of `*` for a skill not loaded). */
export function parseSkills(text: string, path: string): SkillInfo[] {
  return lines(text).map((line) => {
    const tab = line.indexOf("\t");
    if (tab < 2 || (line[0] !== "*" && line[0] !== " ") || line[1] !== " ")
      throw new ReplyFormatError(path, line, "not a skill's line");
    return { name: line.slice(2, tab), description: line.slice(tab + 1), loaded: line[0] === "*" };
  });
}

/** `* name\ttype\tmodel` (a space instead of `*` for all but the default). */
export function parseBackends(text: string, path: string): BackendInfo[] {
  return lines(text).map((line) => {
    const [head = "", type, model] = line.split("\t");
    if (type === undefined || model === undefined)
      throw new ReplyFormatError(path, line, "not a backend's line");
    return { name: head.slice(2), type, model, isDefault: head.startsWith("*") };
  });
}

/** `# FILE`, then `status\t* name\ttype\tmodel\tdetail` lines. */
export function parseBackendChecks(text: string, path: string): BackendChecks {
  const all = lines(text);
  const file = all[0]?.startsWith("# ") ? all.shift()!.slice(2) : "";
  const backends = all.map((line) => {
    const [status = "", head = "", type, model, ...detail] = line.split("\t");
    if (type === undefined || model === undefined)
      throw new ReplyFormatError(path, line, "not a check's line");
    return {
      status: (BACKEND_STATUSES.includes(status) ? status : "error") as BackendStatus,
      isDefault: head.startsWith("*"),
      name: head.slice(2),
      type,
      model,
      detail: detail.join("\t"),
    };
  });
  return { file, backends };
}

/**
 * The daemon's `stats`, by name: sessions, agents, agents-live, toolsrv-connections, connections, fids,
 * requests, heap-used, rss (and whatever a later olliesrv adds).
 */
export function parseStats(text: string): Record<string, number> {
  const stats: Record<string, number> = {};
  for (const line of lines(text)) {
    const [name = "", value = ""] = line.split(" ");
    const n = Number(value);
    if (name && !Number.isNaN(n)) stats[name] = n;
  }
  return stats;
}
