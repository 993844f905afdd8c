import type { SessionClient } from "./session-client.js";

/** An agent's `activity` file, read (see NAMESPACE.md). */
export interface AgentActivity {
  /** `idle`, `thinking`, `calling`, `hook`, `compacting` or `prompt commands`. */
  state: string;
  /** The running tools, comma-separated, or the running hook's event; empty when none runs. */
  tool: string;
  /** The first argument of the first running tool, on one line. */
  arg: string;
  since: Date | undefined;
  turnStarted: Date | undefined;
}

/** Tokens, requests and cost, as the `usage` file has them. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  requests: number;
  costUsd: number;
}

/** `key=value` lines as an object (a value may hold `=`). */
export function keyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

const time = (iso: string | undefined) => {
  const t = iso ? new Date(iso) : undefined;
  return t && !Number.isNaN(t.getTime()) ? t : undefined;
};

/**
 * What the agent at `agent` (`session/ID/agent/NAME`) is doing. An olliesrv older than the `activity` file
 * still has `state`, which names the tools but not their arguments or times.
 */
export async function readActivity(client: SessionClient, agent: string): Promise<AgentActivity> {
  try {
    const kv = keyValues(await client.read(`${agent}/activity`));
    return {
      state: kv.state ?? "",
      tool: kv.tool ?? "",
      arg: kv.arg ?? "",
      since: time(kv.since),
      turnStarted: time(kv.turn_started),
    };
  } catch {
    const state = (await client.read(`${agent}/state`)).trim();
    const calling = /^calling: (.*)$/.exec(state);
    return {
      state: calling ? "calling" : state,
      tool: calling?.[1]?.replaceAll(", ", ",") ?? "",
      arg: "",
      since: undefined,
      turnStarted: undefined,
    };
  }
}

/**
 * Follows the agent at `agent`: `update` gets its activity each time its state changes, until `stop()`. Its
 * `statewait` is open once this returns, so call it before what starts a turn and no change is missed.
 */
export async function followActivity(
  client: SessionClient,
  agent: string,
  update: (activity: AgentActivity) => void,
): Promise<{ stop(): Promise<void> }> {
  const changes = await client.watch(`${agent}/statewait`);
  const watching = new AbortController();
  // It ends when stopped, or with the connection or the session: either way there is nothing more to show.
  const watched = (async () => {
    for (;;) {
      await changes.next(watching.signal);
      update(await readActivity(client, agent));
    }
  })().catch(() => {});
  return {
    stop: async () => {
      watching.abort();
      await watched;
      await changes.close();
    },
  };
}

/** The `usage` file: the running (or last) turn's totals and the session's. */
export async function readUsage(
  client: SessionClient,
  agent: string,
): Promise<{ turn?: UsageTotals; session?: UsageTotals }> {
  return JSON.parse(await client.read(`${agent}/usage`)) as { turn?: UsageTotals; session?: UsageTotals };
}

/** The words after `error: ` of an `outcome` (how a turn ended) that says the turn failed, else undefined. */
export function failureOf(outcome: string): string | undefined {
  const m = /^error: (.*)/s.exec(outcome.trim());
  return m ? m[1]! : undefined;
}

/** How much of a failed turn's reason `ollie top` and `ollie status` show. */
export const REASON_CHARS = 60;

/** 950, 12.3k, 4.5M: token counts that fit a column. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** 0.4s, 12s, 3m05s, 2h10m. */
export function duration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${Math.floor(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d`;
}

/** The running tool and its first argument, as sh's status line and top show it: `shell: sleep 1`. */
export function toolText(a: AgentActivity): string {
  if (!a.tool) return "";
  return a.arg ? `${a.tool}: ${a.arg}` : a.tool;
}
