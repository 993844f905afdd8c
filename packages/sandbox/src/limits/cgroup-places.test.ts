import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findCgroupPlaces } from "./cgroup-places.js";

/**
 * Where limits go, read from a `/proc/self` and cgroup trees laid out in a scratch directory as the kernel
 * shows them on each kind of machine: pure cgroup v2 with systemd's delegation, the hybrid layout of this
 * machine and CI (v1 pids and memory, a v2 hierarchy without them), co-mounted v1 controllers, none.
 */

let root: string;
let proc: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "cgroup-places-"));
  proc = join(root, "proc");
  mkdirSync(proc);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A cgroup directory: its cgroup.procs and, for v2, what its subtree_control enables. */
function cgroup(path: string, subtree?: string): string {
  const dir = join(root, path);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "cgroup.procs"), "");
  if (subtree !== undefined) writeFileSync(join(dir, "cgroup.subtree_control"), `${subtree}\n`);
  return dir;
}

function self(mounts: Array<[string, string, string, string]>, cgroups: string[]): void {
  const lines = mounts.map(
    ([mountRoot, point, type, options], i) =>
      `${30 + i} 20 0:${40 + i} ${mountRoot} ${join(root, point)} rw,nosuid - ${type} ${type} ${options}`,
  );
  writeFileSync(join(proc, "mountinfo"), `21 1 8:1 / / rw - ext4 /dev/sda1 rw\n${lines.join("\n")}\n`);
  writeFileSync(join(proc, "cgroup"), `${cgroups.join("\n")}\n`);
}

describe("where a process may put its cgroups", () => {
  it("cgroup v2: the deepest cgroup at or above its own whose children get pids and memory", async () => {
    cgroup("cg", "cpu memory pids");
    cgroup("cg/user.slice/user-1000.slice", "memory pids");
    cgroup("cg/user.slice/user-1000.slice/user@1000.service", "memory pids");
    const slice = cgroup("cg/user.slice/user-1000.slice/user@1000.service/app.slice", "pids");
    cgroup("cg/user.slice/user-1000.slice/user@1000.service/app.slice/ollie.scope", "");
    self(
      [["/", "cg", "cgroup2", "rw,nsdelegate"]],
      ["0::/user.slice/user-1000.slice/user@1000.service/app.slice/ollie.scope"],
    );
    const found = await findCgroupPlaces(proc);
    expect(found.places).toEqual([
      { version: 2, controllers: ["pids"], mount: join(root, "cg"), parent: slice },
    ]);
    expect(found.missing.memory).toMatch(
      /^no cgroup at or above this process's own \(.*ollie\.scope\) that it may write enables the memory controller for its children$/,
    );
    expect(found.mounts).toEqual([join(root, "cg")]);
  });

  it("the hybrid layout: v1 pids and memory hierarchies, each in its own place, and a v2 one without them", async () => {
    cgroup("cg/unified", "");
    const pids = cgroup("cg/pids");
    const memory = cgroup("cg/memory/process_api/42");
    self(
      [
        ["/", "cg/unified", "cgroup2", "rw"],
        ["/", "cg/pids", "cgroup", "rw,pids"],
        ["/", "cg/memory", "cgroup", "rw,memory"],
      ],
      ["9:name=systemd:/", "8:pids:/", "4:memory:/process_api/42", "0::/"],
    );
    const found = await findCgroupPlaces(proc);
    expect(found.places).toEqual([
      { version: 1, controllers: ["pids"], mount: pids, parent: pids },
      { version: 1, controllers: ["memory"], mount: join(root, "cg/memory"), parent: memory },
    ]);
    expect(found.missing).toEqual({});
    expect(found.mounts).toHaveLength(3);
  });

  it("co-mounted v1 controllers share one place; a mount of a subtree shows the cgroups below its root", async () => {
    const own = cgroup("cg/job/7");
    self([["/job", "cg/job", "cgroup", "rw,memory,pids"]], ["3:memory,pids:/job/7"]);
    expect((await findCgroupPlaces(proc)).places).toEqual([
      { version: 1, controllers: ["pids", "memory"], mount: join(root, "cg/job"), parent: own },
    ]);
  });

  it("says why there is no place when no hierarchy has the controllers", async () => {
    self([], []);
    expect(await findCgroupPlaces(proc)).toEqual({
      places: [],
      missing: {
        pids: "no cgroup hierarchy with the pids controller is mounted",
        memory: "no cgroup hierarchy with the memory controller is mounted",
      },
      mounts: [],
    });
  });
});
