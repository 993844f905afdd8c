// `pnpm --filter olliesrv bench:remote`: a trivial tool call (`shell` running `:`) through toolsrv on another
// host — a real sshd on a loopback port, toolsrv sent there and started over ssh, its socket forwarded —
// against the same call on a local toolsrv, and a bare 9P read (`rev`) through each, all in one run.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@ollie/log";
import { hmacAuthenticator } from "@ollie/ninep";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { agentTmpDir } from "../src/remote/agent-tmp.js";
import { RemoteToolsrv } from "../src/remote/remote-toolsrv.js";
import { SshMaster } from "../src/remote/ssh-master.js";
import { startToolsrv } from "../src/toolsrv/toolsrv-process.js";
import { SSHD, startSshd } from "./sshd.js";

if (!SSHD) {
  console.log("no sshd here (install openssh-server): nothing to measure");
  process.exit(0);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const root = mkdtempSync(join(tmpdir(), "olliesrv-bench-remote-"));
for (const d of ["work", "remote", "ctl", "tmp"]) mkdirSync(join(root, d));
const key = randomBytes(24).toString("hex");
const log = createLogger({ program: "bench", settings: { level: "warn", categories: new Map() } });
const sshd = await startSshd();
const master = new SshMaster({
  destination: sshd.destination,
  controlDir: join(root, "ctl"),
  sshOptions: sshd.sshOptions,
});
const remote = new RemoteToolsrv({
  master,
  localSocket: join(root, "remote.sock"),
  key,
  cacheDir: join(root, "cache"),
  configDir: join(root, "config"),
  dataDir: join(root, "remote"),
  log,
});
const local = await startToolsrv(`unix!${join(root, "local.sock")}`, { OLLIE_TOOLSRV_KEY: key }, [], log);
try {
  await remote.start();
  // Each with a TMPDIR of its own, as olliesrv dials: the policy grants it rather than the shared /tmp.
  const dial = (address: string, tmp: string) =>
    ToolsrvConn.dial({
      address,
      uname: "bench",
      cwd: join(root, "work"),
      env: { TMPDIR: tmp },
      authenticator: hmacAuthenticator(key),
      autoLoad: ["shell"],
    });
  const conns = {
    local: await dial(local.address, join(root, "tmp")),
    remote: await dial(remote.address, await agentTmpDir(master, "bench")),
  };
  const signal = new AbortController().signal;
  const measure = async (conn: ToolsrvConn, what: "call" | "rev") => {
    const times: number[] = [];
    for (let i = 0; i < 120; i++) {
      const start = performance.now();
      if (what === "call") await conn.call("shell", { command: ":" }, signal);
      else await conn.revision();
      if (i >= 20) times.push(performance.now() - start);
    }
    return median(times);
  };
  // Interleaved, so both meet the same load on this shared machine.
  const [localRev, remoteRev] = [await measure(conns.local, "rev"), await measure(conns.remote, "rev")];
  const [localCall, remoteCall] = [await measure(conns.local, "call"), await measure(conns.remote, "call")];
  console.log(`olliesrv remote-execution benchmark (node ${process.version}; median of 100)\n`);
  console.log(
    `a 9P read of rev:   local ${localRev.toFixed(2)} ms, over ssh ${remoteRev.toFixed(2)} ms (+${(remoteRev - localRev).toFixed(2)} ms)`,
  );
  const added = remoteCall - localCall;
  console.log(
    `a shell call of ':': local ${localCall.toFixed(2)} ms, over ssh ${remoteCall.toFixed(2)} ms: ${(remoteCall / localCall).toFixed(2)}×, +${added.toFixed(2)} ms`,
  );
  await conns.local.close();
  await conns.remote.close();
} finally {
  await remote.stop();
  await master.stop();
  await local.stop();
  await sshd.stop();
  rmSync(root, { recursive: true, force: true });
}
