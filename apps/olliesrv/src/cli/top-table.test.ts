import { describe, expect, it } from "vitest";
import { palette } from "./colour.js";
import { createdAt, renderTable, roughly, summaryLine, type TopRow } from "./top-table.js";

const now = Date.parse("2026-11-30T12:00:00Z");
const id = `${BigInt(now - 90_000) * 1_000_000n}-abc123`;
const rows: TopRow[] = [
  {
    session: id,
    name: "lead",
    agent: "main",
    activity: {
      state: "calling",
      tools: ["shell"],
      arg: "npm test -- --run",
      since: new Date(now - 5000),
      turnStarted: undefined,
    },
    turns: 3,
    outcome: { status: "done", text: "done" },
    usage: { inputTokens: 12_345, outputTokens: 678, costUsd: 0.0123 },
    budget: {
      usd: 0.05,
      usdSpent: 0.0123,
      usdLeft: 0.0377,
      tokens: 100_000,
      tokensSpent: 13_023,
      tokensLeft: 86_977,
      warnAt: [0.5, 0.8],
    },
  },
  {
    session: "1796046449450612060-ab0742",
    name: "1796046449450612060-ab0742",
    agent: "main",
    activity: { state: "idle", tools: [], arg: "", since: undefined, turnStarted: undefined },
    turns: 0,
    outcome: undefined,
    usage: undefined,
  },
];

describe("ollie top's table", () => {
  it("has every column when nothing bounds it", () => {
    const [head, busy, idle] = renderTable(rows, palette(false), now, Number.POSITIVE_INFINITY);
    expect(head).toMatch(/^SESSION +NAME +AGENT +STATE +FOR +TOOL +TURNS +TOKENS +COST +BUDGET +AGE$/);
    // The budget shows the limit nearest its end: 24% of the dollars (13% of the tokens).
    expect(busy).toMatch(
      new RegExp(
        `^${id} lead +main +calling +5s shell: npm test -- --run +3 +12k/678 +\\$0\\.0123 +24% of \\$0\\.05 +1m$`,
      ),
    );
    // A session never named has no name to show but its id.
    expect(idle).toMatch(/^1796046449450612060-ab0742 +main +idle/);
  });

  it("fits a terminal: the optional columns go first, then the tool is cut", () => {
    const at = (width: number) => renderTable(rows, palette(false), now, width);
    for (const width of [60, 80, 100, 140])
      for (const line of at(width)) expect([...line].length).toBeLessThanOrEqual(width);
    expect(at(80)[0]).toMatch(/^SESSION +STATE +TOOL +TURNS +TOKENS +COST +AGE$/);
    expect(at(80)[1]).toMatch(/ calling +shell: npm … +3 /);
    expect(at(140)[0]).toMatch(/^SESSION +NAME +AGENT +STATE +FOR +TOOL/);
  });

  it("colours the state alone, and says how much is going on", () => {
    const [, busy] = renderTable(rows, palette(true), now, 200);
    expect(busy).toContain("\u001b[36mcalling   \u001b[39m");
    expect(summaryLine(rows, now, false)).toMatch(
      /^ollie top — 2 sessions, 2 agents, 1 busy, \$0\.0123 in all · \d\d:\d\d:\d\d$/,
    );
    expect(createdAt(id)).toBe(now - 90_000);
    expect(["0s", "59s", "1m", "2h", "3d"]).toEqual(
      [0, 59_999, 60_000, 7_200_000, 3 * 86_400_000].map(roughly),
    );
  });

  it("shows an idle agent whose last turn failed as failed, with why in the tool's place", () => {
    const reason = `backend 'mock' answered 500: ${"the server is having a bad day ".repeat(5)}`;
    const failed: TopRow = {
      ...rows[1]!,
      turns: 2,
      outcome: { status: "error", error: `${reason}\nand a second line\n`, text: `error: ${reason}` },
    };
    const [, line] = renderTable([failed], palette(false), now, Number.POSITIVE_INFINITY);
    // The reason is one line, cut to 60 characters.
    expect(line).toMatch(
      /^1796046449450612060-ab0742 +main +failed +backend 'mock' answered 500: the server is having a bad day… +2 /,
    );
    const [, coloured] = renderTable([failed], palette(true), now, 200);
    expect(coloured).toContain("\u001b[31mfailed    \u001b[39m");
    expect(summaryLine([...rows, failed], now, false)).toContain("3 agents, 1 busy, 1 failed, $0.0123");
    // Failed is how the last turn ended: once the agent works again, it shows what it does.
    const working: TopRow = { ...failed, activity: { ...rows[0]!.activity! } };
    expect(renderTable([working], palette(false), now, Number.POSITIVE_INFINITY)[1]).toMatch(
      / calling +5s shell: /,
    );
    // A turn that ended otherwise is no failure.
    for (const status of ["done", "interrupted", "blocked", undefined] as const) {
      const outcome = status && { status, text: status };
      const [, plain] = renderTable([{ ...failed, outcome }], palette(false), now, Number.POSITIVE_INFINITY);
      expect(plain).toMatch(/ main +idle +2 /);
    }
  });
});
