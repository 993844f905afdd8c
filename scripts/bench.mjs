// `npm run bench`: every package's benchmark, one at a time, then one table of the figures that matter to a
// user, each beside its baseline from the same run. A benchmark adds a row by appending one JSON line to the
// file named by OLLIE_BENCH_SUMMARY (when set):
//   {"order": 1, "measure": "...", "ours": "...", "baseline": "...", "ratio": "...", "goal": "...", "met": true}
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

const dir = mkdtempSync(join(tmpdir(), "ollie-bench-"));
const summary = join(dir, "summary.jsonl");
const run = await execa("turbo", ["run", "bench", "--concurrency=1", ...process.argv.slice(2)], {
  stdio: "inherit",
  reject: false,
  preferLocal: true,
  env: { OLLIE_BENCH_SUMMARY: summary },
});

let rows = [];
try {
  rows = readFileSync(summary, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .sort((a, b) => (a.order ?? 99) - (b.order ?? 99));
} catch {
  // No benchmark wrote a row (the run failed early, or a filter left them out).
}
rmSync(dir, { recursive: true, force: true });

const cells = ["measure", "ours", "baseline (same run)", "ratio", "goal", "met"];
const table = [
  `Summary — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})`,
  "",
  `| ${cells.join(" | ")} |`,
  `| ${cells.map(() => "---").join(" | ")} |`,
  ...rows.map(
    (r) =>
      `| ${r.measure} | ${r.ours} | ${r.baseline} | ${r.ratio ?? ""} | ${r.goal ?? ""} | ${r.met === undefined ? "" : r.met ? "yes" : "no"} |`,
  ),
];
console.log(`\n${table.join("\n")}`);
process.exit(run.exitCode ?? 1);
