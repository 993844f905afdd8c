// `pnpm --filter olliesrv bench:telemetry`: what telemetry costs olliesrv's start, interleaved rounds of
//   off       — no OTEL_* set (the libraries' no-op API only; no SDK package loaded),
//   on        — OTEL_EXPORTER_OTLP_ENDPOINT set (the SDK loaded and exporting to a local OTLP receiver),
//   baseline  — with OLLIESRV_BASELINE naming another build's bin/olliesrv.js (one from before telemetry),
// each from the process's spawn to its ready line (sessions restored, listening) and its RSS then.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { OLLIESRV } from "../test/harness.js";
import { OtlpReceiver } from "../test/otlp-receiver.js";

const ROUNDS = Number(process.env.ROUNDS ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

const receiver = await OtlpReceiver.start();
const modes: { name: string; bin: string; env: Record<string, string> }[] = [
  { name: "off", bin: OLLIESRV, env: {} },
  { name: "on", bin: OLLIESRV, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } },
];
if (process.env.OLLIESRV_BASELINE)
  modes.unshift({ name: "baseline", bin: process.env.OLLIESRV_BASELINE, env: {} });

async function startOnce(bin: string, extra: Record<string, string>): Promise<{ ms: number; rss: number }> {
  const root = mkdtempSync(join(tmpdir(), "olliesrv-start-"));
  try {
    mkdirSync(join(root, "config", "ollie"), { recursive: true });
    // A backend that is never asked: the start reads backends.conf, as a real one does.
    writeFileSync(
      join(root, "config", "ollie", "backends.conf"),
      "default = m\n[m]\ntype = openai\nurl = http://127.0.0.1:1/v1\nmodel = m\n",
    );
    const env = {
      HOME: root,
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_DATA_HOME: join(root, "data"),
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
      NAMESPACE: join(root, "ns"),
      TMPDIR: root,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...extra,
    };
    const started = performance.now();
    const child = execa(
      process.execPath,
      [bin, "-a", `unix!${join(root, "ns", "ollie")}`, "--print-address"],
      {
        env,
        extendEnv: false,
        reject: false,
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once("data", () => resolve());
      void child.then((r) => reject(new Error(`olliesrv exited: ${r.stderr}`)));
    });
    const ms = performance.now() - started;
    const rss = rssMiB(child.pid!);
    child.kill("SIGTERM");
    await child;
    return { ms, rss };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

console.log(
  `olliesrv start with and without telemetry (node ${process.version}, ${ROUNDS} interleaved rounds)\n`,
);
const results = new Map(modes.map((m) => [m.name, { ms: [] as number[], rss: [] as number[] }]));
await startOnce(OLLIESRV, {}); // warms the file cache and the launcher
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of modes) {
    const { ms, rss } = await startOnce(mode.bin, mode.env);
    results.get(mode.name)!.ms.push(ms);
    results.get(mode.name)!.rss.push(rss);
  }
}
receiver.close();
const off = results.get("off")!;
for (const [name, { ms, rss }] of results) {
  console.log(
    `${name.padEnd(9)} start to ready ${median(ms).toFixed(0)} ms (min ${Math.min(...ms).toFixed(0)}), RSS ${median(rss).toFixed(1)} MiB — ${(median(ms) / median(off.ms)).toFixed(2)}× and ${(median(rss) - median(off.rss)).toFixed(1)} MiB against off`,
  );
}
