import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { NinepServer } from "@ollie/ninep";
import { resolvePolicy, sandboxCommand, startSandboxed } from "@ollie/sandbox";
import { ToolsrvConn } from "../src/client.js";
import { ToolPolicies } from "../src/exec/tool-policies.js";
import { createToolServer } from "../src/index.js";

/**
 * The tool server inside this process (createToolServer behind a NinepServer on a Unix socket; the app's
 * `pnpm --filter toolsrv bench` measures the real daemon, a process of its own, which is what an agent
 * pays):
 *
 * 1. a trivial tool call end to end — ToolsrvConn → 9P → sandboxed process → result — against the same
 *    tool started directly through the launcher service (`startSandboxed`, what toolsrv uses) and by
 *    spawning the launcher command, interleaved in the same run, min and median;
 * 2. calls per second with 8 in flight.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const root = mkdtempSync(join(tmpdir(), "toolsrv-bench-"));
const tools = join(root, "tools");
const work = join(root, "work");
mkdirSync(tools);
mkdirSync(work);
const tool = join(tools, "noop");
writeFileSync(
  tool,
  "#!/bin/sh\n# ollie:tool noop\n# ollie:description Does nothing.\n# ollie:parallel read\necho ok\n",
);
chmodSync(tool, 0o755);

const env = { HOME: root, XDG_CONFIG_HOME: join(root, "config"), PATH: "/usr/bin:/bin" };
const policy = await resolvePolicy({ env });
const server = createToolServer({
  toolsPath: [tools],
  policy,
  owner: userInfo().username,
  defaultTools: ["noop"],
});
const address = `unix!${join(root, "toolsrv.sock")}`;
const ninep = new NinepServer(server.tree);
await ninep.listen(address);
const conn = await ToolsrvConn.dial({ address, uname: "bench", cwd: work, env: { PATH: "/usr/bin:/bin" } });

// The tool's own policy and environment, as toolsrv gives them.
const toolPolicy = new ToolPolicies().for(policy, {
  file: tool,
  meta: (await server.service.sources.catalog.get("noop"))!.meta,
});
const toolEnv = { PATH: "/usr/bin:/bin", OLLIE_UNAME: "bench", OLLIE_TOOL: "noop" };
const prepared = await sandboxCommand(tool, [], { policy: toolPolicy, cwd: work, env: toolEnv });

const expectOk = (out: string) => {
  if (out !== "ok\n") throw new Error(`unexpected output ${JSON.stringify(out)}`);
};
const ways: Record<string, () => Promise<void>> = {
  "toolsrv call": async () => expectOk((await conn.call("noop", {}, new AbortController().signal)).output),
  "launcher service": async () => {
    const child = await startSandboxed(tool, [], { policy: toolPolicy, cwd: work, env: toolEnv });
    child.stdin.end("{}\n");
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.resume();
    const closed = (r: NodeJS.ReadableStream) => new Promise((done) => r.once("close", done));
    await Promise.all([child.exit, closed(child.stdout), closed(child.stderr)]);
    expectOk(out);
  },
  "launcher spawned": () =>
    new Promise((resolve, reject) => {
      const child = spawn(prepared.file, prepared.args, { cwd: work, env: toolEnv, stdio: "pipe" });
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      child.stderr.resume();
      child.stdin.on("error", () => {}); // the tool may exit without reading its arguments
      child.stdin.end("{}\n");
      child.on("error", reject);
      child.on("close", () => (out === "ok\n" ? resolve() : reject(new Error(`unexpected ${out}`))));
    }),
};

const names = Object.keys(ways);
const times = Object.fromEntries(names.map((n) => [n, [] as number[]]));
for (let i = 0; i < RUNS + 30; i++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!;
    await new Promise((resolve) => setTimeout(resolve, 2));
    const start = performance.now();
    await ways[name]!();
    if (i >= 30) times[name]!.push(performance.now() - start);
  }
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[xs.length >> 1]!;
console.log(
  `@ollie/toolsrv benchmarks (node ${process.version}, in-process server, ${RUNS} interleaved runs)\n`,
);
console.log("1. a trivial tool call, min and median:");
for (const n of names)
  console.log(
    `   ${n.padEnd(17)} ${sorted(times[n]!)[0]!.toFixed(2)} ms, ${median(times[n]!).toFixed(2)} ms`,
  );
const ours = times["toolsrv call"]!;
const service = times["launcher service"]!;
console.log(
  `   ratio to the launcher service: ${(sorted(ours)[0]! / sorted(service)[0]!).toFixed(2)} (min), ${(median(ours) / median(service)).toFixed(2)} (median)`,
);

const CALLS = 400;
const start = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < CALLS) {
      next++;
      await conn.call("noop", {}, new AbortController().signal);
    }
  }),
);
const seconds = (performance.now() - start) / 1000;
console.log(`2. ${CALLS} calls with 8 in flight: ${(CALLS / seconds).toFixed(0)} calls/s`);

await conn.close();
await server.close();
await ninep.close();
rmSync(root, { recursive: true, force: true });
