import { readFileSync } from "node:fs";
import type { RecordedRequest } from "@ollie/backends/testing";
import { connect } from "@ollie/client";
import { execa } from "execa";
import { OLLIE, startOllie } from "../test/harness.js";
import { chromiumPresent, launchChromium, startWebCommand } from "../test/web-harness.js";

/**
 * `ollie web` under load: SESSIONS sessions stream a turn at once (a tool call, then a reply of REPLY_CHARS
 * characters in small chunks) while one browser page — the sessions page — shows them all, and `ollie top`
 * runs beside it at a terminal. It prints what the page was sent (messages and bytes a second), how the
 * page kept up (how late a 50 ms timer in it fired: its main thread's delays; long tasks), and what each
 * process spent (CPU over the run, RSS at its end): olliesrv, ollie web, ollie top, and the browser.
 */
const SESSIONS = Number(process.env.OLLIE_BENCH_SESSIONS ?? 50);
const REPLY_CHARS = 2000;
const REPLY =
  `${"The reply streams, a few characters at a time. ".repeat(Math.ceil(REPLY_CHARS / 48))}`.slice(
    0,
    REPLY_CHARS,
  );

type Message = { role: string };
function model(request: RecordedRequest) {
  const last = (request.body as { messages: Message[] }).messages.at(-1)!;
  return last.role === "tool"
    ? { text: REPLY, chunkSize: 8, delayMs: 20 }
    : { toolCalls: [{ name: "shell", arguments: { command: "echo working" } }] };
}

/** CPU seconds a process (and the children it waited for) has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / 100;
}
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
/** Every process under `pid`, itself included (the browser is many). */
function tree(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return [pid, ...children.flatMap((c) => tree(Number(c)))];
}
const treeCpu = (pid: number) => tree(pid).reduce((sum, p) => sum + cpuSeconds(p), 0);
const treeRss = (pid: number) => tree(pid).reduce((sum, p) => sum + rssMiB(p), 0);

if (!chromiumPresent()) process.exit(0);
/** The page's document, as functions run in the page see it (this file is compiled without the DOM's types). */
interface PageElement {
  textContent: string | null;
}
interface PageGlobals {
  document: {
    getElementById(id: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement>;
  };
}

const o = await startOllie("olliesrv-web-load-", { mock: { replies: model } });
const owner = await connect({ env: o.env });
const sessions = await Promise.all(
  Array.from({ length: SESSIONS }, (_, i) =>
    owner.newSession({ name: `load-${i}`, cwd: o.work, agent: "coding" }),
  ),
);
const web = await startWebCommand(o);
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
// Counts what the page's stream delivers, and how late a 50 ms timer fires: the page's own view of its load.
await page.addInitScript({
  content: `
    window.load = { messages: 0, bytes: 0, lateness: [], longTasks: 0, longest: 0 };
    const Original = window.EventSource;
    window.EventSource = class extends Original {
      constructor(...args) {
        super(...args);
        this.addEventListener("patch", (e) => { window.load.messages++; window.load.bytes += e.data.length; });
      }
    };
    let due = performance.now() + 50;
    setInterval(() => { const now = performance.now(); window.load.lateness.push(now - due); due = now + 50; }, 50);
    new PerformanceObserver((list) => {
      for (const t of list.getEntries()) { window.load.longTasks++; window.load.longest = Math.max(window.load.longest, t.duration); }
    }).observe({ type: "longtask", buffered: true });`,
});
await page.goto(web.url);
await page.waitForFunction(
  () => (globalThis as unknown as PageGlobals).document.getElementById("link")?.textContent === "live",
);
await page.waitForFunction(
  (n) => (globalThis as unknown as PageGlobals).document.querySelectorAll("tbody.session").length === n,
  SESSIONS,
);
const top = execa("script", ["-qfec", `${process.execPath} ${OLLIE} -a '${o.address}' top`, "/dev/null"], {
  env: { ...o.env, TERM: "xterm-256color", COLUMNS: "160", LINES: "60" },
  extendEnv: false,
  reject: false,
  stdin: "pipe",
});
let topBytes = 0;
top.stdout!.on("data", (c: Buffer) => {
  topBytes += c.length;
});
// top is running once it has drawn the table.
while (topBytes === 0) await new Promise((resolve) => setTimeout(resolve, 50));

const cpuBefore = { olliesrv: treeCpu(o.pid), web: cpuSeconds(web.child.pid!), top: treeCpu(top.pid!) };
// The browser playwright started: the child of this process that runs Chromium.
const browserPid = tree(process.pid).find(
  (p) => p !== process.pid && readFileSync(`/proc/${p}/cmdline`, "utf8").includes("chromium"),
);
const browserCpuBefore = browserPid ? treeCpu(browserPid) : 0;
await page.evaluate(
  "Object.assign(window.load, { messages: 0, bytes: 0, lateness: [], longTasks: 0, longest: 0 })",
);
const topBytesBefore = topBytes;
const started = performance.now();
await Promise.all(sessions.map(async (s) => (await s.agent().prompt("Go")).ended));
// The page has caught up once every row says its one turn is done.
await page.waitForFunction(
  (n) =>
    Array.from(
      (globalThis as unknown as PageGlobals).document.querySelectorAll(
        "tbody.session td[data-label='Last turn']",
      ),
    ).filter((td) => td.textContent === "done").length === n,
  SESSIONS,
  { timeout: 60_000 },
);
const seconds = (performance.now() - started) / 1000;
const load = (await page.evaluate("window.load")) as {
  messages: number;
  bytes: number;
  lateness: number[];
  longTasks: number;
  longest: number;
};
const cpu = {
  olliesrv: treeCpu(o.pid) - cpuBefore.olliesrv,
  web: cpuSeconds(web.child.pid!) - cpuBefore.web,
  top: treeCpu(top.pid!) - cpuBefore.top,
  browser: browserPid ? treeCpu(browserPid) - browserCpuBefore : Number.NaN,
};
const sorted = [...load.lateness].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const percent = (s: number) => `${((100 * s) / seconds).toFixed(0)}%`;

console.log(
  `\nollie web under load: ${SESSIONS} sessions streaming a turn at once (a tool call, then ${REPLY_CHARS} characters in chunks of 8, 20 ms apart), ${seconds.toFixed(1)} s until the page showed every turn done\n`,
);
console.log("| | figure |");
console.log("|---|---:|");
console.log(`| stream messages to the page | ${load.messages} (${(load.messages / seconds).toFixed(0)}/s) |`);
console.log(
  `| stream bytes to the page | ${(load.bytes / 1024).toFixed(0)} KiB (${(load.bytes / 1024 / seconds).toFixed(0)} KiB/s) |`,
);
console.log(
  `| page timer lateness p50 / p95 / max | ${pct(0.5).toFixed(1)} / ${pct(0.95).toFixed(1)} / ${pct(1).toFixed(1)} ms |`,
);
console.log(`| page long tasks (> 50 ms) | ${load.longTasks}, longest ${load.longest.toFixed(0)} ms |`);
console.log(
  `| ollie top's output | ${((topBytes - topBytesBefore) / 1024).toFixed(0)} KiB (${((topBytes - topBytesBefore) / 1024 / seconds).toFixed(0)} KiB/s) |`,
);
console.log(
  `| CPU: olliesrv (and toolsrv) | ${cpu.olliesrv.toFixed(1)} s (${percent(cpu.olliesrv)} of one core) |`,
);
console.log(`| CPU: ollie web | ${cpu.web.toFixed(1)} s (${percent(cpu.web)}) |`);
console.log(`| CPU: ollie top | ${cpu.top.toFixed(1)} s (${percent(cpu.top)}) |`);
console.log(`| CPU: Chromium (every process) | ${cpu.browser.toFixed(1)} s (${percent(cpu.browser)}) |`);
console.log(
  `| RSS: olliesrv, ollie web, ollie top | ${rssMiB(o.pid).toFixed(0)}, ${rssMiB(web.child.pid!).toFixed(0)}, ${treeRss(top.pid!).toFixed(0)} MiB |`,
);

top.stdin!.write("q");
await top;
await browser.close();
await web.stop();
owner.close();
await o.stop();
await o.remove();
