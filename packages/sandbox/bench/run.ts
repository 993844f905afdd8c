import { spawnSync } from "node:child_process";
import { resolvePolicy, sandboxCommand } from "../src/index.js";

/**
 * Added latency of starting /bin/true through the launcher, with the built-in default policy (about 35
 * paths, TCP port rules, scoping and the seccomp filter), against starting it directly — alternating, in
 * the same run.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);

function timeMs(file: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(file, args, { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${file} exited ${r.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

const policy = await resolvePolicy({ env: { HOME: "/nonexistent", XDG_CONFIG_HOME: "/nonexistent" } });
const sandboxed = await sandboxCommand("/bin/true", [], { policy, env: { PATH: "/usr/bin:/bin" } });
const direct: number[] = [];
const launched: number[] = [];
for (let i = 0; i < 50; i++) {
  timeMs("/bin/true", []);
  timeMs(sandboxed.file, sandboxed.args);
}
for (let i = 0; i < RUNS; i++) {
  direct.push(timeMs("/bin/true", []));
  launched.push(timeMs(sandboxed.file, sandboxed.args));
}
const d = quantile(direct, 0.5);
const l = quantile(launched, 0.5);
console.log(
  `@ollie/sandbox benchmark (node ${process.version}, ${RUNS} alternating runs, Landlock ABI ${sandboxed.probe.abi})\n`,
);
console.log(
  `/bin/true directly:          median ${d.toFixed(2)} ms, p90 ${quantile(direct, 0.9).toFixed(2)} ms`,
);
console.log(
  `through the launcher:        median ${l.toFixed(2)} ms, p90 ${quantile(launched, 0.9).toFixed(2)} ms`,
);
console.log(
  `added by the launcher:       median ${(l - d).toFixed(2)} ms (${sandboxed.args.length} launcher arguments)`,
);
