import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { NinepServer } from "@ollie/ninep";
import { resolvePolicy, sandboxCommand, withLayer } from "@ollie/sandbox";
import { ToolsrvConn } from "../src/client.js";
import { createToolServer } from "../src/index.js";

/**
 * 1. A trivial tool call end to end — client → 9P → sandboxed process → result — against spawning the same
 *    tool directly under the sandbox launcher, alternating, in the same run.
 * 2. Calls per second with 8 in flight.
 */

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

const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function viaToolsrv(): Promise<number> {
  const start = now();
  const r = await conn.call("noop", {}, new AbortController().signal);
  if (r.output !== "ok\n") throw new Error(`unexpected ${JSON.stringify(r)}`);
  return now() - start;
}

const direct = await sandboxCommand(tool, [], {
  policy: withLayer(policy, { filesystem: { rox: [tools] } }, "bench"),
  cwd: work,
  env: { PATH: "/usr/bin:/bin" },
});
function viaLauncher(): Promise<number> {
  const start = now();
  return new Promise((resolve, reject) => {
    const child = spawn(direct.file, direct.args, {
      cwd: work,
      env: direct.env,
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.on("exit", () =>
      out === "ok\n" ? resolve(now() - start) : reject(new Error(`unexpected ${out}`)),
    );
    // The tool may exit without reading its arguments.
    child.stdin.on("error", () => {});
    child.stdin.end("{}\n");
  });
}

console.log(`@ollie/toolsrv benchmarks (node ${process.version})\n`);
const ours: number[] = [];
const bare: number[] = [];
for (let i = 0; i < 230; i++) {
  const o = await viaToolsrv();
  const b = await viaLauncher();
  if (i < 30) continue;
  ours.push(o);
  bare.push(b);
}
const [o, b] = [median(ours), median(bare)];
console.log(
  `1. a trivial tool call end to end: ${o.toFixed(2)} ms; the same tool spawned under the launcher directly: ${b.toFixed(2)} ms; ratio ${(o / b).toFixed(2)} (median of 200)`,
);

const CALLS = 400;
const start = now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < CALLS) {
      next++;
      await conn.call("noop", {}, new AbortController().signal);
    }
  }),
);
const seconds = (now() - start) / 1000;
console.log(`2. ${CALLS} calls with 8 in flight: ${(CALLS / seconds).toFixed(0)} calls/s`);

await conn.close();
await server.close();
await ninep.close();
rmSync(root, { recursive: true, force: true });
