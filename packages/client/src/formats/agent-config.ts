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
  /** The rounds of tool calls a turn may make (absent from an olliesrv that does not say). */
  maxSteps?: number;
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
    ...(kv.maxsteps && /^\d+$/.test(kv.maxsteps) && { maxSteps: Number(kv.maxsteps) }),
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
  /**
   * The rounds of tool calls each turn may make, from the running turn's next round (its profile's own
   * number: it follows its profile again). Only the owner may give more than the profile does.
   */
  maxSteps?: number;
}

/** The `cfg` key of each setting. */
const KEYS: Record<keyof AgentSettings, string> = {
  model: "model",
  backend: "backend",
  profile: "profile",
  maxSteps: "maxsteps",
};

export function settingsLines(settings: AgentSettings): string {
  return Object.entries(settings)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const text = String(value);
      if (/[\n\r]/.test(text)) throw new TypeError(`the ${key} is one line`);
      if (key === "maxSteps" && !(Number.isSafeInteger(value) && (value as number) > 0))
        throw new TypeError(`maxSteps is a whole number of rounds, not ${text}`);
      return `${KEYS[key as keyof AgentSettings] ?? key}=${text}\n`;
    })
    .join("");
}
