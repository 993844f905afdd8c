// `node scripts/test-under-load.mjs [--busy N] [--runs R] [-- TURBO ARGS]`: the suite as `npm test` runs it,
// while N processes (default 2) spin on the CPUs, R times in a row (default 1, stopping at the first red
// run). Each run re-runs every check (`--force`: a cached result says nothing about this machine's load)
// but builds nothing again (`--only`: the setup built what changed). It reports each run's wall time and
// per-package summary, and exits 1 when a run failed.
//
// It runs the setup first, before which nothing is installed: so it uses node's own child_process, and
// loads the suite runner (which needs execa) only then.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { parseArgs } from "node:util";

const USAGE = "usage: node scripts/test-under-load.mjs [--busy N] [--runs R] [-- TURBO ARGS...]";
let options;
try {
  options = parseArgs({
    options: {
      busy: { type: "string", default: "2" },
      runs: { type: "string", default: "1" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
} catch (error) {
  console.error(`test-under-load: ${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const count = (name) => {
  const n = Number(options.values[name]);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`test-under-load: --${name} must be a whole number ≥ 0\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const busy = count("busy");
const runs = Math.max(1, count("runs"));

// Each spins for a tenth of a second at a time, then ends if this script is gone (whatever ended it).
const SPIN = `for (;;) { for (let i = 0; i < 1e8; i++); try { process.kill(${process.pid}, 0); } catch { process.exit(0); } }`;

const root = join(import.meta.dirname, "..");
const [setup] = await once(
  spawn(process.execPath, ["scripts/setup.mjs"], { cwd: root, stdio: "inherit" }),
  "exit",
);
if (setup !== 0) process.exit(1);
const { formatSummary, runSuite } = await import("./suite.mjs");

const spinners = Array.from({ length: busy }, () =>
  spawn(process.execPath, ["-e", SPIN], { stdio: "ignore" }),
);
const stopSpinners = () => {
  for (const s of spinners) s.kill("SIGKILL");
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopSpinners();
    process.exit(130);
  });
}

const reports = [];
let failed = false;
try {
  for (let run = 1; run <= runs && !failed; run++) {
    const result = await runSuite(["--force", "--only", ...options.positionals]);
    const report = `Run ${run} of ${runs} with ${busy} busy process${busy === 1 ? "" : "es"}: ${result.ok ? "green" : "RED"}, ${(result.wallMs / 1000).toFixed(1)} s${formatSummary(result)}`;
    reports.push(report);
    console.log(`\n${report}`);
    failed = !result.ok;
  }
} finally {
  stopSpinners();
}
if (reports.length > 1) console.log(`\n${reports.join("\n\n")}`);
process.exitCode = failed ? 1 : 0;
