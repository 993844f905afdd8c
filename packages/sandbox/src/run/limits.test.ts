import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";
import { ended, started, survivors } from "../__fixtures__/survivors.js";
import { ProtectedPathError } from "../errors.js";
import { resourceGroups } from "../limits/resource-groups.js";
import { sandboxCommand } from "./prepare.js";
import { startSandboxed } from "./run-sandboxed.js";

/**
 * Resource limits against the real launcher and kernel: a group's process and memory limits in cgroups
 * (where this process may make them: root on this machine and in CI), file size and CPU time as rlimits,
 * and user namespaces refused by seccomp unless the policy allows them.
 */

let s: Scratch;
const groups = await resourceGroups();
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

const limited = (limits: object, extra: object = {}) => s.policy({ limits, ...extra });
/** Forks `n` sleepers and prints how many it started; a refused fork is not retried. */
const FORKER = `import os, sys
n = 0
try:
    for _ in range(int(sys.argv[1])):
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "300"])
        n += 1
except OSError as e:
    print("refused after", n, e.strerror, flush=True)
    sys.exit(1)
print("started", n, flush=True)
`;
const forker = (n: number) => `python3 -c '${FORKER}' ${n}`;

/** The cgroups of group `name` that exist now, in every hierarchy. */
const groupCgroups = (name: string) =>
  groups.places.flatMap((p) => readdirSync(p.dir).filter((d) => d === `group-${name}`));

const cgroupsHere = () => groups.placeOf("pids") !== undefined && groups.placeOf("memory") !== undefined;

describe.runIf(cgroupsHere())("a group's process limit, in a cgroup", () => {
  it("stops a fork bomb at the limit, ends its whole tree, and says so; the group's cgroups go with it", async () => {
    const mark = randomUUID();
    const r = await bash(s, "bomb() { bomb | bomb & }; bomb; sleep 300", {
      policy: await limited({ processes: 40 }),
      env: { ...s.env, OLLIE_TEST_MARK: mark },
      group: "bomber",
    });
    expect(r.result).toMatchObject({ signal: "SIGKILL", reached: [{ limit: "processes", value: 40 }] });
    expect(r.result.reached[0]!.text).toBe("the 40-process limit");
    await ended(`OLLIE_TEST_MARK=${mark}`);
    expect(groupCgroups("bomber")).toEqual([]);
  });

  it("counts the commands of a group together, and holds another group to its own limit", async () => {
    const policy = await limited({ processes: 20 });
    const mark = randomUUID();
    const env = { ...s.env, OLLIE_TEST_MARK: mark };
    // 15 sleepers and the python that started them: 16 of the group's 20.
    const holder = await startSandboxed("bash", ["-c", `${forker(15)}; exec sleep 300`], {
      policy,
      env,
      cwd: s.rw,
      group: "one",
    });
    holder.stdin.end();
    await started(`OLLIE_TEST_MARK=${mark}`, 16);
    expect(groupCgroups("one")).toEqual(groups.places.map(() => "group-one"));
    const [same, other] = await Promise.all([
      bash(s, forker(10), { policy, group: "one" }),
      bash(s, forker(10), { policy, group: "two" }),
    ]);
    // Refused at the group's limit (and ended for it, unless it exited first having said so).
    expect(same.out).toMatch(/^(refused after [0-9] Resource temporarily unavailable)?$/);
    expect(same.result.reached.map((l) => l.limit)).toEqual(["processes"]);
    expect(other.out).toBe("started 10");
    expect(other.result.reached).toEqual([]);
    // The first command of the group was not the one refused: it runs on.
    expect(survivors(`OLLIE_TEST_MARK=${mark}`).length).toBeGreaterThanOrEqual(16);
    holder.end();
    expect(await holder.exit).toMatchObject({ signal: "SIGTERM", reached: [] });
    await ended(`OLLIE_TEST_MARK=${mark}`);
    expect(groupCgroups("one")).toEqual([]);
  });

  it("keeps the command in its cgroup: the cgroup files are out of its reach", async () => {
    const pids = groups.placeOf("pids")!;
    const r = await bash(s, `cat /proc/self/cgroup; echo 0 > ${pids.mount}/cgroup.procs`, {
      policy: await limited({ processes: 40 }),
      group: "kept",
    });
    expect(r.out).toContain(`${pids.dir.slice(pids.mount.length)}/group-kept/call-`);
    expect(r.err).toContain(`${pids.mount}/cgroup.procs: Permission denied`);
    const granting = await bash(s, "true", {
      policy: await limited({}, { filesystem: { rw: [pids.mount] } }),
    })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(granting).toBeInstanceOf(ProtectedPathError);
  });
});

describe.runIf(cgroupsHere())("a group's memory limit, in a cgroup", () => {
  it("stops a 2 GiB allocation at the limit, and says so", async () => {
    const policy = await limited({ memory: "128MiB" });
    const direct = await s.run("python3", ["-c", "b = bytearray(2 << 30); print('allocated')"], { policy });
    expect(direct).toMatchObject({ signal: "SIGKILL", reached: [{ limit: "memory", value: 128 * 2 ** 20 }] });
    expect(direct.stdout.toString()).toBe("");
    expect(direct.reached[0]!.text).toBe("its memory limit of 128 MiB");
    // A process the command started is killed for it, and that is said: with cgroup v1 the process alone
    // (the command lives on), with cgroup v2 every process of the command (memory.oom.group).
    const inner = await bash(s, "python3 -c 'b = bytearray(2 << 30)'; echo status $?", { policy });
    expect(inner.result.reached.map((l) => l.limit)).toEqual(["memory"]);
    if (groups.placeOf("memory")!.version === 1) expect(inner.out).toBe("status 137");
    else expect(inner.result.signal).toBe("SIGKILL");
  });
});

describe("per-process limits (rlimits)", () => {
  it("fails a write past the file-size limit: SIGXFSZ ends a process that does not handle it", async () => {
    const policy = await limited({ file_size: "1MiB" });
    const head = await bash(s, `exec head -c 2000000 /dev/zero > ${s.rw}/big`, { policy });
    expect(head.result).toMatchObject({
      signal: "SIGXFSZ",
      reached: [{ limit: "file_size", value: 2 ** 20 }],
    });
    expect(head.result.reached[0]!.text).toBe("the 1 MiB file-size limit");
    expect(statSync(join(s.rw, "big")).size).toBe(2 ** 20);
    // Python ignores SIGXFSZ: its write fails with EFBIG, which it reports itself.
    const py = await bash(s, `python3 -c 'open("${s.rw}/big2", "wb").write(b"x" * 2000000)'`, { policy });
    expect(py.code).toBe(1);
    expect(py.err).toContain("OSError: [Errno 27] File too large");
  });

  it("ends a process at its CPU time limit with SIGXCPU, and says so", async () => {
    const r = await s.run("python3", ["-c", "while True: pass"], { policy: await limited({ cpu_time: 1 }) });
    expect(r).toMatchObject({ signal: "SIGXCPU", reached: [{ limit: "cpu_time", value: 1 }] });
    expect(r.reached[0]!.text).toBe("the CPU time limit of 1 s");
  });

  it("dumps no core of a process a limit ends", async () => {
    const r = await bash(s, "ulimit -c; ulimit -Hc", { policy: await limited({}) });
    expect(r.out).toBe("0\n0");
  });
});

describe("namespaces", () => {
  it("refuses to create user (and other) namespaces, while threads and the private /proc still work", async () => {
    const r = await bash(
      s,
      "for a in -U -Urn -m -n -p; do unshare $a true 2>&1; done; python3 -c 'import threading; t = threading.Thread(target=print, args=(\"thread\",)); t.start(); t.join()'; ls /proc | grep -c '^[0-9]'",
      { policy: await limited({}) },
    );
    expect(r.out.split("\n")).toEqual([
      ...Array(5).fill("unshare: unshare failed: Operation not permitted"),
      "thread",
      expect.stringMatching(/^[1-5]$/),
    ]);
  });

  it("lets a command create a user namespace when the policy allows it", async () => {
    const r = await bash(s, "unshare -U id -u", {
      policy: await limited({}, { general: { user_namespaces: true } }),
    });
    // Nobody: a new user namespace maps no user until one is written.
    expect(r).toMatchObject({ code: 0, out: "65534" });
  });
});

/** A cgroup v2 directory this process may make cgroups in (controllers or not), if there is one. */
function writableV2(): string | undefined {
  const mount = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" "))
    .find((f) => f[f.indexOf("-") + 1] === "cgroup2" && f[3] === "/")?.[4];
  const own = /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
  if (!mount || own === undefined) return undefined;
  const dir = join(mount, own, `launcher-test-${process.pid}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return undefined;
  }
}

describe("on cgroup v2", () => {
  const v2 = writableV2();
  afterAll(() => v2 && rmdirSync(v2));

  it.runIf(v2)("the launcher creates the command in its cgroup, and removes that when it ends", async () => {
    const cmd = await sandboxCommand("cat", ["/proc/self/cgroup"], {
      policy: await limited({}),
      env: s.env,
      cwd: s.rw,
    });
    const r = await execa(cmd.file, ["--cgroup", v2!, ...cmd.args], { env: s.env, cwd: s.rw, reject: false });
    const own = /^0::(.*)$/m.exec(r.stdout)?.[1];
    expect(own).toMatch(/\/launcher-test-\d+\/call-\d+$/);
    expect(readdirSync(v2!).filter((d) => d.startsWith("call-"))).toEqual([]);
  });
});

describe.runIf(cgroupsHere())("the cgroups of this process", () => {
  it("are a directory of its own in each hierarchy, holding no process itself", () => {
    for (const p of groups.places) {
      expect(p.dir).toBe(join(p.parent, `ollie-${process.pid}`));
      expect(readFileSync(join(p.dir, "cgroup.procs"), "utf8")).toBe("");
    }
  });
});
