import { spawn } from "node:child_process";
import { interleave, minMedian, msSince } from "../../../bench/interleave.js";
import {
  limitEnforcement,
  resolvePolicy,
  resourceGroups,
  runSandboxed,
  sandboxCommand,
  withLayer,
} from "../src/index.js";

/**
 * What starting a command in the sandbox adds, with the built-in default policy (about 35 paths, TCP port
 * rules, scoping, the seccomp filter, a private /proc, the resource limits): `/bin/true` spawned by Node
 * directly (the baseline), through `runSandboxed` (the launcher service, as toolsrv runs tools) with the
 * group's process and memory limits in cgroups where this process may make them — each run the group's
 * first and last command, so its cgroups are made and removed, and the command's own made, joined and
 * removed, as for an agent's call in toolsrv — and with those two limits lifted (no cgroup), and by spawning
 * the launcher binary itself (`sandboxCommand`, for callers that spawn on their own) — interleaved in the
 * same run, the order turning every round. Printed are the fastest and the median start of each, and their
 * ratios to the baseline.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const env = { PATH: "/usr/bin:/bin" };

function spawned(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: "ignore", env });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return msSince(start);
}

const policy = await resolvePolicy({ env: { HOME: "/nonexistent", XDG_CONFIG_HOME: "/nonexistent" } });
const uncapped = withLayer(policy, { limits: { processes: "unlimited", memory: "unlimited" } }, "bench");
const launched = await sandboxCommand("/bin/true", [], { policy, env, cwd: "/tmp" });
const served = (p: typeof policy) => async () => {
  const r = await runSandboxed("/bin/true", [], { policy: p, env, cwd: "/tmp" });
  if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}: ${r.stderr}`);
};
const ways: Record<string, () => Promise<unknown>> = {
  "/bin/true spawned directly": () => spawned("/bin/true", []),
  "runSandboxed, limits in cgroups": served(policy),
  "runSandboxed, no cgroup": served(uncapped),
  "the launcher spawned directly": () => spawned(launched.file, launched.args),
};
// Warm up the service, the page cache and Node's spawn path before measuring.
const WARMUP = 50;
await interleave(
  Object.values(ways).map((run) => () => timeMs(run)),
  WARMUP,
);
const times = await interleave(
  Object.values(ways).map((run) => () => timeMs(run)),
  RUNS,
);
const base = minMedian(times[0]!);
const signed = (ms: number) => `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(2)}`;
const enforced = limitEnforcement(policy, await resourceGroups())
  .filter((l) => l.per === "group" && l.by !== null)
  .map((l) => `${l.limit} by ${l.by}`);
console.log(
  `@ollie/sandbox benchmark (node ${process.version}, ${RUNS} interleaved rounds, Landlock ABI ${launched.probe.abi}, ${launched.args.length} launcher arguments; in cgroups: ${enforced.join(", ") || "none here"}): fastest / median\n`,
);
for (const [k, name] of Object.keys(ways).entries()) {
  const { min, median } = minMedian(times[k]!);
  const vs =
    k === 0
      ? "baseline"
      : `ratio ${(min / base.min).toFixed(2)} / ${(median / base.median).toFixed(2)}, added ${signed(median - base.median)} ms at the median`;
  console.log(`${name.padEnd(34)} ${min.toFixed(2)} / ${median.toFixed(2)} ms, ${vs}`);
}
const [withCgroups, without] = [minMedian(times[1]!), minMedian(times[2]!)];
console.log(
  `\njoining cgroups costs ${signed(withCgroups.min - without.min)} / ${signed(withCgroups.median - without.median)} ms a command (fastest / median)`,
);
