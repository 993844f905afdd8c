import { type AgentState, parseState } from "./agent-state.js";
import { keyValues } from "./key-values.js";

/** Where a remote session's tools run, and how olliesrv's connection there stands. */
export interface RemoteTools {
  host: string;
  state: "connected" | "connecting" | "disconnected";
  /** Why the connection was lost, once it was. */
  lost?: string;
}

/** An agent's settings, as its `cfg` file has them. */
export interface AgentConfig {
  name: string;
  /** The principal it is: `SESSION.AGENT`. */
  uname: string;
  profile: string;
  /** Its backends.conf profile; undefined for the default. */
  backend: string | undefined;
  /** Its model; undefined for the profile's. */
  model: string | undefined;
  cwd: string;
  /** The skills loaded. */
  skills: string[];
  state: AgentState;
  /** For a session whose tools run on another host. */
  remote?: RemoteTools;
}

export function parseAgentConfig(text: string, path: string): AgentConfig {
  const kv = keyValues(text);
  const remoteState = kv.remote_state;
  return {
    name: kv.name ?? "",
    uname: kv.uname ?? "",
    profile: kv.profile ?? "",
    backend: kv.backend || undefined,
    model: kv.model || undefined,
    cwd: kv.cwd ?? "",
    skills: kv.skills ? kv.skills.split(",") : [],
    state: parseState(kv.state ?? "", path),
    ...(kv.remote && {
      remote: {
        host: kv.remote,
        state: remoteState === "connected" || remoteState === "connecting" ? remoteState : "disconnected",
        ...(kv.remote_lost && { lost: kv.remote_lost }),
      },
    }),
  };
}

/** The settings an agent's `cfg` takes: each given is written as a `key=value` line. */
export interface AgentSettings {
  model?: string;
  backend?: string;
  /** Another agent profile: a new runtime and tools, and a fresh history. */
  profile?: string;
}

export function settingsLines(settings: AgentSettings): string {
  return Object.entries(settings)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      if (/[\n\r]/.test(value as string)) throw new TypeError(`the ${key} is one line`);
      return `${key}=${value}\n`;
    })
    .join("");
}
