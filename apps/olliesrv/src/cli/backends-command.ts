import { DialError, type OllieClient } from "@ollie/client";
import {
  answered,
  type BackendCheck,
  type CheckStatus,
  checkBackends,
  verdict,
} from "../config/backend-check.js";
import { readBackends } from "../config/live-config.js";
import { olliePaths } from "../paths.js";

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

/** The profiles as olliesrv has them, and the file it read them from. */
export interface DaemonView {
  file: string;
  rows: BackendRow[];
}

/** What olliesrv says of its profiles: it asks every one for its models, with its own keys. */
export async function daemonView(client: OllieClient): Promise<DaemonView> {
  const { file, backends } = await client.checkBackends();
  // The client's statuses are the check's own.
  const rows = backends.map(({ status, isDefault, name, type, model, detail }) => ({
    status,
    isDefault,
    name,
    type,
    model,
    detail,
  }));
  return { file, rows };
}

/**
 * olliesrv, when it runs: undefined when nothing serves at its address (no socket, or a socket nobody
 * listens on). Any other failure — a refused attach, an address that cannot be one — is thrown.
 */
export async function runningDaemon(reach: () => Promise<OllieClient>): Promise<OllieClient | undefined> {
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
 * checked by it with the keys in its environment; otherwise the file it would read at its
 * start, checked here with this shell's environment, and said so. 0 when the default backend answers.
 */
export async function backendsCommand(reach: () => Promise<OllieClient>): Promise<number> {
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
