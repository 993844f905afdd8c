// The test suite as `npm test` and `scripts/test-under-load.mjs` run it: `turbo run typecheck test lint` over
// every package, going on past a failure (`--continue`), then one line per package saying whether all its
// tasks passed, how many tests vitest counted and how long the package took. Turbo's run summary
// (`--summarize`) says how each task ended and where its log is; the test counts are vitest's own line there.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

const root = join(import.meta.dirname, "..");
const runsDir = join(root, ".turbo", "runs");
export const SUITE_TASKS = ["typecheck", "test", "lint"];

/**
 * Runs the suite's tasks through turbo with its output shown as it comes; `extra` goes to turbo after them
 * (a `--filter`, `--force`, `--only`). Resolves to how each package fared, whether turbo succeeded, and the
 * wall time.
 */
export async function runSuite(extra = []) {
  const started = Date.now();
  const before = new Set(existsSync(runsDir) ? readdirSync(runsDir) : []);
  const turbo = await execa("turbo", ["run", ...SUITE_TASKS, "--continue", "--summarize", ...extra], {
    cwd: root,
    stdio: "inherit",
    reject: false,
    preferLocal: true,
    env: { TURBO_TELEMETRY_DISABLED: "1" },
  });
  const wallMs = Date.now() - started;
  const summaryFile = newRunSummary(before);
  const packages = summaryFile ? packagesOf(JSON.parse(readFileSync(summaryFile, "utf8"))) : [];
  if (summaryFile) rmSync(summaryFile, { force: true });
  const ok = turbo.exitCode === 0 && packages.every((p) => p.passed);
  return { ok, exitCode: turbo.exitCode ?? 1, wallMs, packages };
}

/** The run summary turbo wrote for this run: the newest file of `.turbo/runs` that was not there before. */
function newRunSummary(before) {
  if (!existsSync(runsDir)) return undefined;
  const fresh = readdirSync(runsDir)
    .filter((name) => name.endsWith(".json") && !before.has(name))
    .map((name) => join(runsDir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return fresh[0];
}

// Vitest's last lines, e.g. "      Tests  3 failed | 120 passed | 2 skipped (125)".
const TESTS_LINE = /^\s*Tests\s+(.+?)\s+\(\d+\)\s*$/m;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what it removes
const COLOURS = /\x1b\[[0-9;]*m/g;

/** What vitest counted, from a test task's log: "120 passed, 2 skipped", or undefined without one. */
function testCounts(logFile) {
  if (!logFile) return undefined;
  let log;
  try {
    log = readFileSync(join(root, logFile), "utf8").replace(COLOURS, "");
  } catch {
    return undefined;
  }
  const counts = TESTS_LINE.exec(log)?.[1];
  return counts?.split(/\s*\|\s*/).join(", ");
}

/** The summary's tasks of the suite, grouped by package: each package's outcome and time. */
function packagesOf(summary) {
  const byPackage = new Map();
  for (const task of summary.tasks ?? []) {
    if (!SUITE_TASKS.includes(task.task)) continue;
    const entry = byPackage.get(task.package) ?? { name: task.package, tasks: [], start: Infinity, end: 0 };
    const execution = task.execution ?? {};
    const cached = task.cache?.status === "HIT";
    const exitCode = execution.exitCode;
    entry.tasks.push({
      task: task.task,
      // A task turbo never started (its package's build failed) has no exit code: it did not pass.
      passed: exitCode === 0,
      cached,
      ...(task.task === "test" && { counts: testCounts(task.logFile) }),
    });
    if (execution.startTime) entry.start = Math.min(entry.start, execution.startTime);
    if (execution.endTime) entry.end = Math.max(entry.end, execution.endTime);
    byPackage.set(task.package, entry);
  }
  return [...byPackage.values()]
    .map((p) => ({
      name: p.name,
      passed: p.tasks.every((t) => t.passed),
      failedTasks: p.tasks.filter((t) => !t.passed).map((t) => t.task),
      counts: p.tasks.find((t) => t.task === "test")?.counts,
      cached: p.tasks.every((t) => t.cached),
      seconds: p.end > p.start ? (p.end - p.start) / 1000 : 0,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One line per package, then the total: what `npm test` ends with. */
export function formatSummary(result) {
  const width = Math.max(0, ...result.packages.map((p) => p.name.length));
  const lines = result.packages.map((p) => {
    const outcome = p.passed ? "passed" : `FAILED (${p.failedTasks.join(", ")})`;
    const counts = p.counts ? `  tests: ${p.counts}` : "";
    const time = p.cached ? "cached" : `${p.seconds.toFixed(1)} s`;
    return `${p.name.padEnd(width)}  ${outcome}${counts}  (${time})`;
  });
  const failed = result.packages.filter((p) => !p.passed).length;
  const packages = `${result.packages.length} package${result.packages.length === 1 ? "" : "s"}`;
  const verdict =
    result.packages.length === 0
      ? `the suite did not run (turbo exited ${result.exitCode})`
      : failed > 0
        ? `${failed} of ${packages} FAILED`
        : result.ok
          ? `${packages} passed`
          : `turbo exited ${result.exitCode}`;
  return ["", "Summary", ...lines, `${verdict} in ${(result.wallMs / 1000).toFixed(1)} s`].join("\n");
}
