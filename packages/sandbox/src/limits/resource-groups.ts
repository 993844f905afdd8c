import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SandboxUnavailableError } from "../errors.js";
import { type CgroupPlace, type CgroupPlaces, type Controller, cgroupPlaces } from "./cgroup-places.js";

/** The limits a group's cgroups hold: for its processes together. null: none. */
export interface GroupLimits {
  processes: number | null;
  memoryBytes: number | null;
}

/** A command's place in its group: the group's directories, one per hierarchy, for `--cgroup`. */
export interface GroupLease {
  dirs: readonly string[];
  /** The controllers the directories hold the group's limits with. */
  controllers: ReadonlySet<Controller>;
  /** The command has ended: the group's cgroups go when its last command has. Call it once. */
  release(): void;
}

/** A hierarchy with this process's own directory in it. */
interface OwnPlace extends CgroupPlace {
  dir: string;
}

interface Group {
  users: number;
  limits: string;
  dirs: string[];
}

const OWN = /^ollie-(\d+)$/;

/** Every errno of the cgroup files is the kernel's answer; a message says which file. */
const why = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** A group's directory name: its name with anything but letters, digits, `.`, `_` and `-` escaped. */
function groupDir(name: string): string {
  const escaped = Buffer.from(name)
    .toString("latin1")
    .replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  const short =
    escaped.length <= 200
      ? escaped
      : `${escaped.slice(0, 180)}-${createHash("sha256").update(name).digest("hex").slice(0, 16)}`;
  return `group-${short}`;
}

/** Removes a cgroup and the cgroups under it (each empty of processes, or it stays). */
function removeCgroup(dir: string): void {
  try {
    rmdirSync(dir);
    return;
  } catch {
    // It has cgroups under it (left by a launcher killed outright), or is in use, or is gone.
  }
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) removeCgroup(join(dir, entry.name));
    rmdirSync(dir);
  } catch {
    // Still in use, or already gone: a later sweep takes it.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * This process's cgroups for resource limits: a directory of its own (`ollie-PID`) in each place the kernel
 * lets it write (see `findCgroupPlaces`), and in it one cgroup per group of commands — for toolsrv, per agent
 * — holding the group's limits for all its commands together. Each command's launcher makes a cgroup of the
 * command's own inside its group's (`--cgroup`). A group's cgroups are made when its first command starts
 * and removed when its last one has ended; this process's own directories when it exits (or by the next
 * process that finds them left behind by one that did not).
 *
 * The cgroup files are written synchronously: each is a few microseconds of the kernel's, and a group is
 * then never being removed while a command joins it.
 */
export class ResourceGroups {
  private readonly groups = new Map<string, Group>();

  private constructor(
    /** Where this process's own directories are, by hierarchy. */
    readonly places: readonly OwnPlace[],
    /** Why a controller has no place, for each that has none. */
    readonly missing: Readonly<CgroupPlaces["missing"]>,
    /** Every cgroup filesystem mounted here. */
    readonly mounts: readonly string[],
  ) {}

  /** Makes this process's own directories where `found` says it may. */
  static create(found: CgroupPlaces): ResourceGroups {
    const places: OwnPlace[] = [];
    const missing = { ...found.missing };
    for (const place of found.places) {
      const dir = join(place.parent, `ollie-${process.pid}`);
      try {
        // Those left by processes that ended without removing them (this pid's too: an earlier process's).
        for (const entry of readdirSync(place.parent)) {
          const pid = Number(OWN.exec(entry)?.[1]);
          if (pid === process.pid || (pid > 0 && !alive(pid))) removeCgroup(join(place.parent, entry));
        }
        mkdirSync(dir);
        if (place.version === 2)
          writeFileSync(join(dir, "cgroup.subtree_control"), place.controllers.map((c) => `+${c}`).join(" "));
        places.push({ ...place, dir });
      } catch (error) {
        removeCgroup(dir);
        for (const c of place.controllers)
          missing[c] = `cannot make a cgroup in ${place.parent}: ${why(error)}`;
      }
    }
    return new ResourceGroups(places, missing, found.mounts);
  }

  /** The controllers that hold limits here, and where. */
  placeOf(controller: Controller): OwnPlace | undefined {
    return this.places.find((p) => p.controllers.includes(controller));
  }

  /**
   * A command of group `name` starts: makes the group's cgroups if it has none, and sets `limits` on them
   * (the latest command's limits hold for the whole group). Throws SandboxUnavailableError when the kernel
   * refuses.
   */
  enter(name: string, limits: GroupLimits): GroupLease {
    const controllers = new Set(this.places.flatMap((p) => p.controllers));
    if (this.places.length === 0 || (limits.processes === null && limits.memoryBytes === null))
      return { dirs: [], controllers: new Set(), release: () => {} };
    let group = this.groups.get(name);
    if (!group) {
      group = { users: 0, limits: "", dirs: this.places.map((p) => join(p.dir, groupDir(name))) };
      this.groups.set(name, group);
    }
    const entered = group;
    const key = JSON.stringify(limits);
    try {
      if (entered.users === 0) for (const dir of entered.dirs) if (!existsSync(dir)) mkdirSync(dir);
      if (entered.limits !== key) {
        for (const [i, place] of this.places.entries()) writeLimits(place, entered.dirs[i]!, limits);
        entered.limits = key;
      }
    } catch (error) {
      if (entered.users === 0) this.remove(name);
      throw new SandboxUnavailableError(
        `The resource limits of '${name}' cannot be set in its cgroups (${(error as Error).message})`,
        "Check that this user may still write its cgroups, or set the policy's limits.processes and limits.memory to unlimited",
      );
    }
    entered.users++;
    let released = false;
    return {
      dirs: entered.dirs,
      controllers,
      release: () => {
        if (released) return;
        released = true;
        if (--entered.users === 0) this.remove(name);
      },
    };
  }

  private remove(name: string): void {
    const group = this.groups.get(name);
    this.groups.delete(name);
    for (const dir of group?.dirs ?? []) removeCgroup(dir);
  }

  /** Removes every cgroup of this process it can (those still holding processes stay). */
  close(): void {
    for (const name of [...this.groups.keys()]) this.remove(name);
    for (const place of this.places) removeCgroup(place.dir);
  }
}

/** Sets a group's limits in one hierarchy's cgroup, in that hierarchy's files. */
function writeLimits(place: OwnPlace, dir: string, limits: GroupLimits): void {
  const write = (file: string, value: string, optional = false) => {
    const path = join(dir, file);
    if (optional && !existsSync(path)) return;
    try {
      writeFileSync(path, value);
    } catch (error) {
      throw new Error(`${path}: ${why(error)}`);
    }
  };
  const pids = place.controllers.includes("pids");
  const memory = place.controllers.includes("memory");
  if (place.version === 2) {
    if (pids) write("pids.max", String(limits.processes ?? "max"));
    if (memory) {
      write("memory.max", String(limits.memoryBytes ?? "max"));
      // A limit of memory, not of memory until swap takes the rest.
      write("memory.swap.max", limits.memoryBytes === null ? "max" : "0", true);
    }
    // The call's own cgroups under it get the controllers' files (pids.events, memory.events.local).
    write("cgroup.subtree_control", place.controllers.map((c) => `+${c}`).join(" "));
    return;
  }
  if (pids) write("pids.max", String(limits.processes ?? "max"));
  if (memory) {
    const bytes = String(limits.memoryBytes ?? -1);
    // memory.memsw (memory and swap) may never be below memory.limit_in_bytes: lift it, set, lower it.
    write("memory.memsw.limit_in_bytes", "-1", true);
    write("memory.limit_in_bytes", bytes);
    write("memory.memsw.limit_in_bytes", bytes, true);
  }
}

let shared: Promise<ResourceGroups> | undefined;

/**
 * This process's resource groups, made on first use (and removed when it exits): what `startSandboxed`
 * runs commands in.
 */
export function resourceGroups(): Promise<ResourceGroups> {
  shared ??= cgroupPlaces().then((found) => {
    const groups = ResourceGroups.create(found);
    process.once("exit", () => groups.close());
    return groups;
  });
  return shared;
}
