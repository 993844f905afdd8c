import type { AgentActivity, Outcome, SessionBudget, UsageTotals } from "@ollie/client";
import { dollars } from "../dollars.js";
import { failureOf, REASON_CHARS, shortCount, toolText } from "../frontend/agent-text.js";
import { budgetCell } from "../frontend/budget-text.js";
import { oneLine, shorten } from "../one-line.js";
import type { Palette } from "./colour.js";

/** One agent's line in `ollie top`. */
export interface TopRow {
  session: string;
  /** The session's name, from the session list (its id when it was never named). */
  name: string;
  agent: string;
  activity: AgentActivity | undefined;
  turns: number;
  /** How its last turn ended (undefined before its first). */
  outcome: Outcome | undefined;
  /** The session's totals. */
  usage: Pick<UsageTotals, "inputTokens" | "outputTokens" | "costUsd"> | undefined;
  /** The session's budget (undefined until read). */
  budget?: SessionBudget | undefined;
}

/** Why the agent's last turn failed, on one line and shortened, when it did and the agent is idle since. */
function failure(row: TopRow): string | undefined {
  if (row.activity?.state !== "idle") return undefined;
  const reason = failureOf(row.outcome);
  return reason === undefined ? undefined : oneLine(reason, REASON_CHARS);
}

/** The STATE column: the activity's state, or `failed` for an idle agent whose last turn failed. */
const stateOf = (row: TopRow) => (failure(row) === undefined ? (row.activity?.state ?? "?") : "failed");

/** When a session was made: its id begins with the nanoseconds since the epoch (see names.ts). */
export function createdAt(session: string): number | undefined {
  const m = /^(\d{19})-/.exec(session);
  return m ? Number(BigInt(m[1]!) / 1_000_000n) : undefined;
}

/** 12s, 5m, 3h, 2d: a time in one unit, for a narrow column. */
export function roughly(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

interface Column {
  title: string;
  width: number;
  right?: boolean;
  /** Shown only when the terminal leaves the tool column room enough; the lower, the sooner. */
  optional?: number;
  cell(row: TopRow, now: number): string;
}

/** The running tool (or hook, or why the last turn failed): it takes the width the other columns leave. */
const TOOL: Column = {
  title: "TOOL",
  width: 0,
  cell: (r) => failure(r) ?? (r.activity ? toolText(r.activity) : ""),
};

const COLUMNS: Column[] = [
  { title: "SESSION", width: 26, cell: (r) => r.session },
  { title: "NAME", width: 12, optional: 3, cell: (r) => (r.name === r.session ? "" : r.name) },
  { title: "AGENT", width: 6, optional: 2, cell: (r) => r.agent },
  { title: "STATE", width: 10, cell: stateOf },
  {
    title: "FOR",
    width: 4,
    right: true,
    optional: 1,
    cell: (r, now) => (r.activity?.since ? roughly(now - r.activity.since.getTime()) : ""),
  },
  TOOL,
  { title: "TURNS", width: 5, right: true, cell: (r) => String(r.turns) },
  {
    title: "TOKENS",
    width: 9,
    right: true,
    cell: (r) => (r.usage ? `${shortCount(r.usage.inputTokens)}/${shortCount(r.usage.outputTokens)}` : "0/0"),
  },
  { title: "COST", width: 8, right: true, cell: (r) => dollars(r.usage?.costUsd ?? 0) },
  { title: "BUDGET", width: 13, right: true, optional: 4, cell: (r) => budgetCell(r.budget) },
  {
    title: "AGE",
    width: 4,
    right: true,
    cell: (r, now) => {
      const t = createdAt(r.session);
      return t === undefined ? "" : roughly(now - t);
    },
  },
];

/** The tool column is never squeezed below this to make room for an optional column. */
const TOOL_ROOM = 24;

const fit = (text: string, width: number, right = false) => {
  const cut = shorten(text, width);
  const pad = " ".repeat(Math.max(0, width - [...cut].length));
  return right ? pad + cut : cut + pad;
};

/** The columns a line of `width` shows, and the tool column's width. */
function layout(rows: readonly TopRow[], now: number, width: number): { columns: Column[]; tool: number } {
  const tool = Math.max(TOOL.title.length, ...rows.map((r) => [...TOOL.cell(r, now)].length));
  const fixed = (cs: Column[]) => cs.reduce((n, c) => n + c.width + 1, 0);
  if (!Number.isFinite(width)) return { columns: COLUMNS, tool };
  let shown = COLUMNS.filter((c) => c.optional === undefined);
  for (const extra of COLUMNS.filter((c) => c.optional !== undefined).sort(
    (a, b) => a.optional! - b.optional!,
  )) {
    const more = COLUMNS.filter((c) => shown.includes(c) || c === extra);
    if (fixed(more) - 1 + TOOL_ROOM <= width) shown = more;
  }
  return { columns: shown, tool: Math.max(TOOL.title.length, Math.min(tool, width - (fixed(shown) - 1))) };
}

/**
 * The table: a header, then one line per agent. Lines fit `width` (Infinity: every column, nothing cut, as
 * when the table goes to a file): the running tool's column takes what the others leave, and the optional
 * columns (how long in the state, the agent, the session's name) show only while it keeps room.
 */
export function renderTable(rows: readonly TopRow[], p: Palette, now: number, width: number): string[] {
  const { columns, tool } = layout(rows, now, width);
  const widthOf = (c: Column) => (c === TOOL ? tool : c.width);
  const stateColour = (state: string) =>
    state === "calling" ? p.cyan : state === "idle" ? p.dim : state === "failed" ? p.red : p.yellow;
  const cut = (line: string) =>
    Number.isFinite(width) && [...line].length > width ? fit(line, width) : line;
  const lines = [
    p.bold(
      cut(
        columns
          .map((c) => fit(c.title, widthOf(c), c.right))
          .join(" ")
          .trimEnd(),
      ),
    ),
  ];
  for (const row of rows) {
    const cells = columns.map((c) => fit(c.cell(row, now), widthOf(c), c.right));
    const plain = cells.join(" ").trimEnd();
    if ([...plain].length > width) {
      lines.push(cut(plain));
      continue;
    }
    // Only the STATE cell is coloured; the others stay as they are, so the columns still line up.
    const state = columns.findIndex((c) => c.title === "STATE");
    cells[state] = stateColour(stateOf(row))(cells[state]!);
    const last = cells.length - 1;
    cells[last] = cells[last]!.trimEnd();
    lines.push(cells.join(" ").trimEnd());
  }
  return lines;
}

/** The line above the table. */
export function summaryLine(rows: readonly TopRow[], now: number, live: boolean): string {
  const sessions = new Set(rows.map((r) => r.session)).size;
  const busy = rows.filter((r) => r.activity && r.activity.state !== "idle").length;
  const failed = rows.filter((r) => failure(r) !== undefined).length;
  const cost = rows.reduce((sum, r) => sum + (r.usage?.costUsd ?? 0), 0);
  const clock = new Date(now).toTimeString().slice(0, 8);
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  return `ollie top — ${plural(sessions, "session")}, ${plural(rows.length, "agent")}, ${busy} busy, ${failed > 0 ? `${failed} failed, ` : ""}${dollars(cost)} in all · ${clock}${live ? " · q quits" : ""}`;
}
