import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { resourceGroups } from "@ollie/sandbox";
import { processesMarked } from "@ollie/sandbox/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

/**
 * An agent's tools cannot take the host down: against the real toolsrv, launcher and kernel, with the
 * limits of a sandbox.yaml — the process and memory limits of each agent in cgroups (where toolsrv may make
 * them, as on this machine and CI), file size and CPU time per process — and no user namespaces.
 */

const s = scratch("toolsrv-limits-");
const LIMIT = 40;
writeFileSync(
  join(s.config, "ollie", "sandbox.yaml"),
  `limits:\n  processes: ${LIMIT}\n  memory: 128MiB\n  file_size: 1MiB\n`,
);
/** Fills most of its agent's process limit, says so, waits for the word, then bombs. */
s.tool(
  "holdthenbomb",
  shTool(
    "holdthenbomb",
    "",
    `for i in $(seq 30); do sleep 300 & done\n: > "$PWD/full"\nread word < "$PWD/go"\nbomb() { bomb | bomb & }\nbomb\nwait`,
  ),
);
/** Waits for its word, then answers through a process of its own. */
s.tool(
  "waitfor",
  shTool("waitfor", "", `read word < "$PWD/go-worker"\necho "$(echo "$word") from $OLLIE_UNAME"`),
);
s.tool("hello", shTool("hello", "", `echo "hello from $OLLIE_UNAME"`));
s.tool("alloc", shTool("alloc", "", `exec python3 -c 'b = bytearray(2 << 30); print("allocated")'`));
s.tool("bigfile", shTool("bigfile", "", `exec head -c 2000000 /dev/zero > "$PWD/big.bin"`));
s.tool(
  "bigfile_py",
  shTool("bigfile_py", "", `exec 2>&1 python3 -c 'open("big.py.bin", "wb").write(b"x" * 2000000)'`),
);
s.tool("userns", shTool("userns", "", "exec 2>&1\nunshare -U id -u\nunshare -Urn id -u\necho done"));
const TOOLS = "holdthenbomb,waitfor,hello,alloc,bigfile,bigfile_py,userns";

let daemon: Daemon;
const groups = await resourceGroups();
const inCgroups = groups.placeOf("pids") !== undefined && groups.placeOf("memory") !== undefined;
beforeAll(async () => {
  daemon = await startDaemon(s, ["--default-tools", TOOLS]);
});
afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

const mkfifo = (name: string) => execa("mkfifo", [join(s.work, name)]);

describe.runIf(inCgroups)("a fork bomb in one agent's tool", () => {
  it("stops at the agent's process limit and says so, while the daemon answers and other agents work", async () => {
    await Promise.all([mkfifo("go"), mkfifo("go-worker")]);
    const mark = randomUUID();
    const bomber = await daemon.conn("s1.bomber", { env: { PATH: "/usr/bin:/bin", OLLIE_TEST_MARK: mark } });
    const worker = await daemon.conn("s1.worker");
    const ac = new AbortController();
    const bomb = bomber.call("holdthenbomb", {}, ac.signal);
    await vi.waitFor(() => expect(existsSync(join(s.work, "full"))).toBe(true), WAIT);
    // Most of the bomber's limit is taken: the daemon answers, and another agent's tools run.
    expect(await worker.call("hello", {}, ac.signal)).toEqual({ output: "hello from s1.worker\n" });
    expect((await bomber.processes()).map((p) => p.status)).toEqual(["running"]);
    const waiting = worker.call("waitfor", {}, ac.signal);
    await writeFile(join(s.work, "go"), "go\n");
    const bombed = await bomb;
    expect(bombed.isError).toBe(true);
    expect(bombed.output).toContain(`[holdthenbomb was stopped: it reached the ${LIMIT}-process limit]`);
    expect((await bomber.processes())[0]?.status).toBe(`stopped: it reached the ${LIMIT}-process limit`);
    // The other agent's call ran through the bomb, and forks after it.
    await writeFile(join(s.work, "go-worker"), "word\n");
    expect(await waiting).toEqual({ output: "word from s1.worker\n" });
    // Nothing of the bomb is left, and its agent's tools run again.
    await vi.waitFor(() => expect(processesMarked(`OLLIE_TEST_MARK=${mark}`)).toEqual([]), WAIT);
    expect(await bomber.call("hello", {}, ac.signal)).toEqual({ output: "hello from s1.bomber\n" });
    await Promise.all([bomber.close(), worker.close()]);
  });
});

describe("an agent's tools", () => {
  it.runIf(inCgroups)("stop at the agent's memory limit: a 2 GiB allocation says so", async () => {
    const conn = await daemon.conn("s2.alloc");
    const r = await conn.call("alloc", {}, new AbortController().signal);
    expect(r).toEqual({
      isError: true,
      output: "[alloc was stopped: it reached its memory limit of 128 MiB]",
    });
    await conn.close();
  });

  it("cannot write a file past the size limit", async () => {
    const conn = await daemon.conn("s2.files");
    const signal = new AbortController().signal;
    const r = await conn.call("bigfile", {}, signal);
    expect(r).toEqual({
      isError: true,
      output: "[bigfile was stopped: it reached the 1 MiB file-size limit]",
    });
    // A program that ignores SIGXFSZ (Python does) has its write fail, and says so itself.
    const py = await conn.call("bigfile_py", {}, signal);
    expect(py.isError).toBe(true);
    expect(py.output).toContain("OSError: [Errno 27] File too large");
    expect(py.output).toContain("[bigfile_py exited with status 1]");
    await conn.close();
  });

  it("cannot create user namespaces", async () => {
    const conn = await daemon.conn("s2.userns");
    const r = await conn.call("userns", {}, new AbortController().signal);
    expect(r.output).toBe(
      "unshare: unshare failed: Operation not permitted\nunshare: unshare failed: Operation not permitted\ndone\n",
    );
    await conn.close();
  });

  it.runIf(inCgroups)(
    "leave no cgroup once their last process has ended, and toolsrv none once it stops",
    async () => {
      const own = groups.places.map((p) => join(p.parent, `ollie-${daemon.child.pid}`));
      const conn = await daemon.conn("s2.cleanup");
      expect(await conn.call("hello", {}, new AbortController().signal)).toEqual({
        output: "hello from s2.cleanup\n",
      });
      await conn.close();
      // No call runs now: every agent's group is gone, toolsrv's own directories stay while it serves.
      for (const dir of own) expect(readdirSync(dir).filter((d) => d.startsWith("group-"))).toEqual([]);
      await daemon.stop();
      expect(own.filter((dir) => existsSync(dir))).toEqual([]);
      daemon = await startDaemon(s, ["--default-tools", TOOLS]);
    },
  );

  it("are told how the limits hold in their sandbox file", async () => {
    const conn = await daemon.conn("s2.sandbox");
    const sandbox = await conn.sandbox();
    expect(sandbox.userNamespaces).toBe(false);
    expect(sandbox.limits.map((l) => [l.limit, l.value, l.per])).toEqual([
      ["processes", LIMIT, inCgroups ? "group" : process.getuid?.() === 0 ? "group" : "command"],
      ["memory", 128 * 2 ** 20, inCgroups ? "group" : "process"],
      ["file_size", 2 ** 20, "process"],
      ["cpu_time", 3600, "process"],
    ]);
    await conn.close();
  });
});
