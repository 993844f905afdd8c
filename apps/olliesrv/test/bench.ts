// `pnpm --filter olliesrv bench`:
// 1. writing `prompt` → `statewait` says idle, with a zero-latency mock backend, against a bare 9P read round
//    trip on the same connection;
// 2. restoring 1,000 saved sessions at start;
// 3. the daemon's memory with 1,000 idle sessions, against none;
// 4. the daemon's memory with 1,000 prompted idle sessions, their toolsrv connections kept and closed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSessionId } from "@ollie/agent-core/sessions";
import { idleSessions } from "./bench-idle-sessions.js";
import { prompt, startOllie } from "./harness.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

console.log(`olliesrv benchmarks (node ${process.version})\n`);

// The count and time of restored sessions is a debug line of the sessions category.
const o = await startOllie("olliesrv-bench-", { args: ["--log-level", "info,sessions=debug"] });
try {
  const id = await o.create(`cwd=${o.work}`);
  const agent = `session/${id}/agent/main`;
  const turns: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < 120; i++) {
    o.mock.enqueue({ text: "ok" });
    let start = performance.now();
    await prompt(o, agent, `ping ${i}`);
    const turn = performance.now() - start;
    start = performance.now();
    await o.read(`${agent}/state`);
    const read = performance.now() - start;
    if (i < 20) continue;
    turns.push(turn);
    reads.push(read);
  }
  const [t, r] = [median(turns), median(reads)];
  console.log(
    `1. prompt written → statewait says idle (mock backend over loopback HTTP): ${t.toFixed(2)} ms; a bare 9P read of state: ${r.toFixed(2)} ms; ${(t / r).toFixed(1)}× (median of 100)`,
  );
  const idleRss = rssKiB(o.child.pid!);
  await o.stop();

  // 1,000 sessions of 20 messages each, as olliesrv would have saved them.
  const dir = join(o.root, "data", "ollie", "sessions");
  mkdirSync(dir, { recursive: true });
  const messages = Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0
      ? { role: "user", content: `question ${i}: ${"why? ".repeat(20)}` }
      : { role: "assistant", content: `answer ${i}: ${"because. ".repeat(30)}` },
  );
  for (let i = 0; i < 1000; i++) {
    const sid = newSessionId();
    const session = {
      version: 1,
      id: sid,
      name: `s${i}`,
      cwd: o.work,
      env: {},
      plan: "",
      created: new Date().toISOString(),
      paused: true,
      agents: [
        {
          name: "main",
          profile: "default",
          session: {
            version: 1,
            id: sid,
            agentId: `${sid}.main`,
            name: "main",
            agent: "default",
            cwd: o.work,
            messages,
            taskState: { objective: "", constraints: [] },
            usage: {
              inputTokens: 0,
              outputTokens: 0,
              cachedInputTokens: 0,
              cacheCreationTokens: 0,
              requests: 0,
              costUsd: 0,
            },
            savedAt: new Date().toISOString(),
          },
        },
      ],
    };
    writeFileSync(join(dir, `${sid}.json`), JSON.stringify(session));
  }
  await o.restart();
  const restored = /restored (\d+) sessions from .* in (\d+) ms/.exec(
    o.log().split("restored").slice(-2).join("restored"),
  );
  const full = rssKiB(o.child.pid!);
  console.log(`2. restoring ${restored?.[1]} saved sessions (20 messages each): ${restored?.[2]} ms`);
  console.log(
    `3. daemon memory (RSS): ${(full / 1024).toFixed(1)} MiB with 1,000 idle sessions, ${(idleRss / 1024).toFixed(1)} MiB with one; about ${((full - idleRss) / 1000).toFixed(1)} KiB per idle session`,
  );
} finally {
  await o.stop();
  await o.remove();
}

console.log(`4. ${await idleSessions()}`);
