import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
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
 * ratios to the baseline. Where this process may make them, the launcher spawned directly is also timed
 * with its command made in a cgroup v2 (clone3) and moved into a cgroup v1 (a write to cgroup.procs).
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
const groups = await resourceGroups();
/** A cgroup of the bench's own in a hierarchy: the v1 pids place, or this process's cgroup v2 if writable. */
function scratchCgroup(version: 1 | 2): string | undefined {
  const v1 = groups.places.find((p) => p.version === 1);
  const mount = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" "))
    .find((f) => f[f.indexOf("-") + 1] === "cgroup2" && f[3] === "/")?.[4];
  const own = /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
  const parent = version === 1 ? v1?.parent : mount && own !== undefined ? join(mount, own) : undefined;
  if (!parent) return undefined;
  const dir = join(parent, `bench-${process.pid}`);
  try {
    mkdirSync(dir);
    // The v1 one is inside this process's own cgroup directory, which goes first at exit.
    process.once("exit", () => rmdirSync(dir, { recursive: false }));
    return dir;
  } catch {
    return undefined;
  }
}
const ways: Record<string, () => Promise<unknown>> = {
  "/bin/true spawned directly": () => spawned("/bin/true", []),
  "runSandboxed, limits in cgroups": served(policy),
  "runSandboxed, no cgroup": served(uncapped),
  "the launcher spawned directly": () => spawned(launched.file, launched.args),
};
for (const version of [2, 1] as const) {
  const dir = scratchCgroup(version);
  if (dir)
    ways[`…, command ${version === 2 ? "made in" : "moved into"} a cgroup v${version}`] = () =>
      spawned(launched.file, ["--cgroup", dir, ...launched.args]);
}
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
const enforced = limitEnforcement(policy, groups)
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
