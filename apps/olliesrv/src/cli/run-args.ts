import { parseArgs } from "node:util";
import type { RunApprovals, SessionSpec } from "@ollie/client";
import { sessionSpec } from "../frontend/session-spec.js";
import { DIRECTORY_PROFILE } from "./directory-session.js";

/** `ollie run [options] PROMPT...` (or `-`: the prompt on standard input), as parsed. */
export interface RunInvocation {
  command: "run";
  /** The prompt; undefined when it is read from standard input (`-`). */
  prompt: string | undefined;
  /** One JSON object a line (`--json`), else the chat as text. */
  json: boolean;
  /** The session it continues (`--session`: an id or a name); none makes a new one from `spec`. */
  session: string | undefined;
  /** The new session: in this directory, with the `coding` profile unless `--agent` says. */
  spec: SessionSpec;
  /** Leave the new session when the run ends (`--keep`). */
  keep: boolean;
  /** The rounds of tool calls the turn may make (`--max-turns`). */
  maxTurns: number | undefined;
  /** What the run may cost, in US dollars (`--max-cost`). */
  maxCostUsd: number | undefined;
  approve: RunApprovals;
}

/** The most rounds `--max-turns` may give: what an agent's `cfg` takes. */
const MOST_TURNS = 10_000;

const RUN_OPTIONS = {
  json: { type: "boolean" },
  agent: { type: "string" },
  backend: { type: "string" },
  model: { type: "string" },
  session: { type: "string" },
  keep: { type: "boolean" },
  "max-turns": { type: "string" },
  "max-cost": { type: "string" },
  approve: { type: "string" },
} as const;

/** Reads `ollie run`'s arguments; throws (a usage mistake) when they are wrong. */
export function parseRun(args: string[]): RunInvocation {
  const { values, positionals } = parseArgs({ args, options: RUN_OPTIONS, allowPositionals: true });
  const fromStdin = positionals.length === 1 && positionals[0] === "-";
  const prompt = positionals.join(" ").trim();
  if (!fromStdin && prompt === "")
    throw new Error("run needs a prompt (or -, to read it from standard input)");
  const { session } = values;
  if (session !== undefined) {
    if (session.trim() === "") throw new Error("--session needs a session's id or name");
    const given = (["agent", "backend", "model"] as const).filter((o) => values[o] !== undefined);
    if (given.length > 0)
      throw new Error(`--session continues a session as it is: --${given[0]} is for a new one`);
  }
  const approve = values.approve ?? "deny";
  if (approve !== "deny" && approve !== "fail")
    throw new Error(`--approve takes deny or fail, not '${approve}'`);
  return {
    command: "run",
    prompt: fromStdin ? undefined : prompt,
    json: values.json ?? false,
    session,
    spec: sessionSpec({
      agent: values.agent ?? DIRECTORY_PROFILE,
      backend: values.backend,
      model: values.model,
    }),
    keep: values.keep ?? false,
    maxTurns: turns(values["max-turns"]),
    maxCostUsd: dollars(values["max-cost"]),
    approve,
  };
}

function turns(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MOST_TURNS))
    throw new Error(`--max-turns takes a whole number of rounds from 1 to ${MOST_TURNS}, not '${value}'`);
  return n;
}

function dollars(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value) || Number(value) === 0)
    throw new Error(`--max-cost takes an amount of US dollars above 0, such as 0.50, not '${value}'`);
  return Number(value);
}
