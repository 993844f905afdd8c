import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ended, survivors } from "../__fixtures__/survivors.js";
import { ensureLauncher } from "../launcher/ensure-launcher.js";
import { launcherArgs } from "../launcher/launcher-args.js";
import { expandPolicy, resolvePolicy } from "../policy/resolve.js";

/**
 * The sandbox as a normal user meets it (the other tests run as whoever runs them: in containers and CI,
 * root). Started as root, these run the launcher as `nobody`: no capabilities to drop, no CAP_SYS_ADMIN, so
 * the private /proc comes from a user and PID namespace instead of a plain mount.
 */

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
let root: string;
let launcher: string;
let probe: string;
let work: string;

beforeAll(async () => {
  if (!asRoot) return;
  root = mkdtempSync(join(tmpdir(), "sandbox-as-user-"));
  chmodSync(root, 0o755);
  launcher = join(root, "ollie-sandbox-launcher");
  copyFileSync((await ensureLauncher()).path, launcher);
  probe = join(root, "probe");
  await execa(process.env.CC ?? "cc", [
    "-O1",
    "-o",
    probe,
    fileURLToPath(new URL("../__fixtures__/probe.c", import.meta.url)),
  ]);
  work = join(root, "work");
  mkdirSync(work);
  chownSync(work, NOBODY, NOBODY);
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * Starts `script` under the default policy (with `layer` over it) as nobody, or as `uid`; resolves to the
 * running launcher (not its result).
 */
async function startAsNobody(
  script: string,
  extra: { env?: Record<string, string>; layer?: object; uid?: number } = {},
) {
  const env = { PATH: "/usr/bin:/bin", HOME: work, TMPDIR: work, ...extra.env };
  const policy = await resolvePolicy({
    env: { HOME: work, XDG_CONFIG_HOME: join(work, "none") },
    layers: [
      { source: "test", layer: { filesystem: { rox: [root] } } },
      { source: "test limits", layer: extra.layer ?? {} },
    ],
  });
  const args = launcherArgs(expandPolicy(policy, { cwd: work, env }));
  const uid = extra.uid ?? NOBODY;
  const process = execa(launcher, [...args, "bash", "-c", script], {
    uid,
    gid: uid,
    cwd: work,
    env,
    extendEnv: false,
    reject: false,
  });
  return { process };
}

/** The program a process runs (the first word of its command line), or undefined once it is gone. */
function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0")[0];
  } catch {
    return undefined;
  }
}

const asNobody = async (script: string, extra: Parameters<typeof startAsNobody>[1] = {}) =>
  (await startAsNobody(script, extra)).process;

/** A user no other process runs as, so that what RLIMIT_NPROC counts is the test's alone. */
const LONER = 61_234;
/** Forks sleepers until one is refused, and says how many it started. */
const FORKS = `python3 -c 'import os
n = 0
try:
    while n < 100:
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "300"])
        n += 1
except OSError as e:
    print("refused after", n, e.strerror)'`;

describe.runIf(asRoot)("as a normal user", () => {
  it("every process inside reads its own /proc/self, and nothing outside is visible", async () => {
    const r = await asNobody(
      `python3 -c 'print(open("/proc/self/status").read().split()[1])'; bash -c 'ls /proc/self/fd | wc -l'; ls /proc | grep -c -x 1; cat /proc/1/cmdline`,
    );
    expect(r.stdout.split("\n")).toEqual(["python3", "4", "0"]);
    expect(r.stderr).toMatch(/\/proc\/1\/cmdline: No such file or directory/);
  });

  it("holds no capability, cannot write outside its grants, nor signal outside processes", async () => {
    const outsider = execa("sleep", ["60"], { uid: NOBODY, gid: NOBODY, reject: false });
    try {
      const r = await asNobody(
        `grep ^CapEff /proc/self/status; echo x > ${root}/outside; echo ok > ${work}/inside && cat ${work}/inside; kill ${outsider.pid}; echo kill=$?`,
      );
      expect(r.stdout.split("\n")).toEqual(["CapEff:\t0000000000000000", "ok", "kill=1"]);
      expect(r.stderr).toContain(`${root}/outside: Permission denied`);
    } finally {
      outsider.kill();
    }
  });

  it("refuses the sockets it refuses as root", async () => {
    const r = await asNobody(
      ["raw-icmp", "packet", "mptcp", "tcp-flags"]
        .map((k) => `echo ${k}: $(${probe} socket ${k})`)
        .join("; "),
    );
    expect(r.stdout.split("\n")).toEqual([
      "raw-icmp: Operation not permitted",
      "packet: Address family not supported by protocol",
      "mptcp: Operation not permitted",
      "tcp-flags: ok",
    ]);
  });

  it("is held to its process limit by RLIMIT_NPROC: its own tasks count, in a user namespace or not", async () => {
    chownSync(work, LONER, LONER);
    try {
      // With /proc/self granted the launcher makes a user namespace of its own, in which only the command's
      // tasks (and the launcher's two) count; without, every task of the user does, counted at the start.
      const without = {
        replace: ["filesystem.ro"],
        filesystem: { ro: ["/etc/ld.so.cache", "/etc/bash.bashrc"] },
      };
      for (const layer of [{}, without]) {
        const r = await asNobody(FORKS, { uid: LONER, layer: { limits: { processes: 10 }, ...layer } });
        // bash execs python: python and 9 sleepers are the command's 10 tasks.
        expect(r.stdout).toBe("refused after 9 Resource temporarily unavailable");
      }
    } finally {
      chownSync(work, NOBODY, NOBODY);
    }
  });

  it("is held to its memory limit by RLIMIT_DATA where it has no cgroup", async () => {
    const r = await asNobody("python3 -c 'b = bytearray(1 << 30)'", {
      layer: { limits: { memory: "256MiB" } },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("MemoryError");
  });

  it("leaves nothing behind when the command exits or is told to end", async () => {
    for (const end of ["exit", "sigterm"] as const) {
      const id = randomUUID();
      const script = `setsid sleep 300 & ( (sleep 300 &) & ) ; ${end === "exit" ? "echo done" : "sleep 300"}`;
      const { process: run } = await startAsNobody(script, { env: { OLLIE_TEST_MARK: id } });
      if (end === "sigterm") {
        // The script's three sleeps, the detached two among them, run before the SIGTERM that must end them.
        const sleeps = () => survivors(`OLLIE_TEST_MARK=${id}`).filter((pid) => commandOf(pid) === "sleep");
        await vi.waitFor(() => expect(sleeps()).toHaveLength(3), { timeout: 10_000, interval: 10 });
        run.kill("SIGTERM");
      }
      await run;
      await ended(`OLLIE_TEST_MARK=${id}`);
    }
  });
});
