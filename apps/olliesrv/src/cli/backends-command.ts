import {
  answered,
  type BackendCheck,
  CHECK_STATUSES,
  type CheckStatus,
  checkBackends,
  verdict,
} from "../config/backend-check.js";
import { readBackends } from "../config/live-config.js";
import { olliePaths } from "../paths.js";
import { DialError, type SessionClient } from "./session-client.js";

/** One profile as `ollie backends` shows it. */
export interface BackendRow {
  isDefault: boolean;
  name: string;
  type: string;
  model: string;
  status: CheckStatus;
  /** What the check found, for a person (`3 models (…)`, `key_env names X, which is not set`). */
  detail: string;
}

/** The profiles as olliesrv has them, and the file it read them from (its `backends.check`). */
export interface DaemonView {
  file: string;
  rows: BackendRow[];
}

/** Reads olliesrv's `backends.check`: it asks every profile for its models, with its own keys. */
export async function daemonView(client: SessionClient): Promise<DaemonView> {
  const lines = (await client.read("backends.check")).split("\n").filter(Boolean);
  const file = lines[0]?.startsWith("# ") ? lines.shift()!.slice(2) : "";
  const rows = lines.map((line) => {
    const [status = "", head = "", type = "", model = "", ...rest] = line.split("\t");
    return {
      status: CHECK_STATUSES.includes(status as CheckStatus) ? (status as CheckStatus) : "error",
      isDefault: head.startsWith("*"),
      name: head.slice(2),
      type,
      model,
      detail: rest.join("\t"),
    };
  });
  return { file, rows };
}

/**
 * olliesrv, when it runs: undefined when nothing serves at its address (no socket, or a socket nobody
 * listens on). Any other failure — a refused attach, an address that cannot be one — is thrown.
 */
export async function runningDaemon(reach: () => Promise<SessionClient>): Promise<SessionClient | undefined> {
  try {
    return await reach();
  } catch (error) {
    if (error instanceof DialError && error.notRunning) return undefined;
    throw error;
  }
}

/**
 * `ollie backends`: the profiles, the default (`*`) and whether each answers (its model list, asked of every
 * profile at once, 5 s at most). When olliesrv runs, its view is what counts — the profiles it has read,
 * checked by it with the keys in its environment (`backends.check`); otherwise the file it would read at its
 * start, checked here with this shell's environment, and said so. 0 when the default backend answers.
 */
export async function backendsCommand(reach: () => Promise<SessionClient>): Promise<number> {
  let view: DaemonView;
  let source: string;
  const client = await runningDaemon(reach);
  if (client) {
    try {
      view = await daemonView(client);
    } finally {
      client.close();
    }
    source = `as olliesrv has them, from ${view.file}; it checked them`;
  } else {
    const { pool } = await readBackends(olliePaths());
    view = { file: pool.conf.file, rows: (await checkBackends(pool)).map(rowOf) };
    source = `from ${view.file}, which olliesrv reads when it starts (it is not running); checked with this shell's environment`;
  }
  process.stdout.write(backendsTable(view.rows));
  process.stdout.write(`(* the default; ${source})\n`);
  const chosen = view.rows.find((r) => r.isDefault);
  if (!chosen) {
    process.stderr.write("ollie: there is no default backend ('default = NAME' in backends.conf)\n");
    return 1;
  }
  if (answered(chosen.status)) return 0;
  process.stderr.write(
    `ollie: the default backend '${chosen.name}' does not answer; 'ollie init' lists the providers it can set up\n`,
  );
  return 1;
}

/** A check made here, as a row. */
export function rowOf(check: BackendCheck): BackendRow {
  const p = check.profile;
  return {
    isDefault: check.isDefault,
    name: p.name,
    type: p.type,
    model: p.model,
    status: check.status,
    detail: check.detail,
  };
}

/** The rows as aligned columns under a header (the verdict last, as long as it is). */
export function backendsTable(rows: readonly BackendRow[]): string {
  const all = [
    { mark: " ", name: "PROFILE", type: "TYPE", model: "MODEL", verdict: "ANSWERS" },
    ...rows.map((r) => ({ ...r, mark: r.isDefault ? "*" : " ", verdict: verdict(r.status, r.detail) })),
  ];
  const width = (key: "name" | "type" | "model") => Math.max(...all.map((r) => r[key].length));
  const [n, t, m] = [width("name"), width("type"), width("model")];
  return all
    .map((r) => `${r.mark} ${r.name.padEnd(n)}  ${r.type.padEnd(t)}  ${r.model.padEnd(m)}  ${r.verdict}\n`)
    .join("");
}
