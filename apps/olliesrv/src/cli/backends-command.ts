import { checkBackends, verdict } from "../config/backend-check.js";
import { readBackends } from "../config/live-config.js";
import { olliePaths } from "../paths.js";
import type { SessionClient } from "./session-client.js";

/** One profile as `ollie backends` shows it. */
export interface BackendRow {
  isDefault: boolean;
  name: string;
  type: string;
  model: string;
  /** `ok: 3 models (…)`, `no answer: …`, `no key: …`, `key refused: …` or `error: …`. */
  verdict: string;
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
    const [head = "", type = "", model = "", ...rest] = line.split("\t");
    return { isDefault: head.startsWith("*"), name: head.slice(2), type, model, verdict: rest.join("\t") };
  });
  return { file, rows };
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
  let client: SessionClient | undefined;
  try {
    client = await reach();
  } catch {
    // Not running (or not reachable as this user): the file is what it will read.
  }
  if (client) {
    try {
      view = await daemonView(client);
    } finally {
      client.close();
    }
    source = `as olliesrv has them, from ${view.file}; it checked them`;
  } else {
    const { pool } = await readBackends(olliePaths());
    const checks = await checkBackends(pool);
    view = {
      file: pool.conf.file,
      rows: checks.map((c) => ({
        isDefault: c.isDefault,
        name: c.profile.name,
        type: c.profile.type,
        model: c.profile.model,
        verdict: verdict(c),
      })),
    };
    source = `from ${view.file}, which olliesrv reads when it starts (it is not running); checked with this shell's environment`;
  }
  process.stdout.write(backendsTable(view.rows));
  process.stdout.write(`(* the default; ${source})\n`);
  const chosen = view.rows.find((r) => r.isDefault);
  if (!chosen) {
    process.stderr.write("ollie: there is no default backend ('default = NAME' in backends.conf)\n");
    return 1;
  }
  if (chosen.verdict.startsWith("ok")) return 0;
  process.stderr.write(
    `ollie: the default backend '${chosen.name}' does not answer; 'ollie init' lists the providers it can set up\n`,
  );
  return 1;
}

/** The rows as aligned columns under a header (the verdict last, as long as it is). */
export function backendsTable(rows: readonly BackendRow[]): string {
  const all = [
    { mark: " ", name: "PROFILE", type: "TYPE", model: "MODEL", verdict: "ANSWERS" },
    ...rows.map((r) => ({ ...r, mark: r.isDefault ? "*" : " " })),
  ];
  const width = (key: "name" | "type" | "model") => Math.max(...all.map((r) => r[key].length));
  const [n, t, m] = [width("name"), width("type"), width("model")];
  return all
    .map((r) => `${r.mark} ${r.name.padEnd(n)}  ${r.type.padEnd(t)}  ${r.model.padEnd(m)}  ${r.verdict}\n`)
    .join("");
}
