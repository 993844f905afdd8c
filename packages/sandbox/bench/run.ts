import { spawn } from "node:child_process";
import { resolvePolicy, runSandboxed, sandboxCommand } from "../src/index.js";

/**
 * What starting a command in the sandbox adds, with the built-in default policy (about 35 paths, TCP port
 * rules, scoping, the seccomp filter, a private /proc): `/bin/true` spawned by Node directly (the baseline),
 * through `runSandboxed` (the launcher service, as toolsrv runs tools), and by spawning the launcher binary
 * itself (`sandboxCommand`, for callers that spawn on their own) — alternating, in the same run.
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
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

const policy = await resolvePolicy({ env: { HOME: "/nonexistent", XDG_CONFIG_HOME: "/nonexistent" } });
const launched = await sandboxCommand("/bin/true", [], { policy, env, cwd: "/tmp" });
const ways: Record<string, () => Promise<unknown>> = {
  "/bin/true spawned directly": () => spawned("/bin/true", []),
  "runSandboxed (launcher service)": async () => {
    const r = await runSandboxed("/bin/true", [], { policy, env, cwd: "/tmp" });
    if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}: ${r.stderr}`);
  },
  "the launcher spawned directly": () => spawned(launched.file, launched.args),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < RUNS + 50; i++) {
  for (const [name, run] of Object.entries(ways)) {
    const ms = await timeMs(run);
    if (i >= 50) times[name]!.push(ms);
  }
}
const base = quantile(times["/bin/true spawned directly"]!, 0.5);
console.log(
  `@ollie/sandbox benchmark (node ${process.version}, ${RUNS} alternating runs, Landlock ABI ${launched.probe.abi}, ${launched.args.length} launcher arguments)\n`,
);
for (const [name, xs] of Object.entries(times)) {
  const median = quantile(xs, 0.5);
  const added = name.startsWith("/bin/true") ? "" : `, added ${(median - base).toFixed(2)} ms`;
  console.log(
    `${name.padEnd(34)} median ${median.toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms${added}`,
  );
}
