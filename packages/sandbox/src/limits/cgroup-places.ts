import { constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The cgroup controllers resource limits use. */
export type Controller = "pids" | "memory";
export const CONTROLLERS: readonly Controller[] = ["pids", "memory"];

/** A cgroup hierarchy this process may make cgroups in, and for which controllers. */
export interface CgroupPlace {
  version: 1 | 2;
  controllers: Controller[];
  /** Where the hierarchy is mounted. */
  mount: string;
  /** An existing cgroup this process may write in, at or above its own: where its own directory goes. */
  parent: string;
}

/** Where limits can be put in cgroups here, and why not for a controller that has no place. */
export interface CgroupPlaces {
  places: CgroupPlace[];
  missing: Partial<Record<Controller, string>>;
  /** Every cgroup filesystem mounted here: no command may be granted writing in one. */
  mounts: string[];
}

interface Mount {
  root: string;
  point: string;
  version: 1 | 2;
  /** A v1 hierarchy's controllers (its superblock options). */
  options: string[];
}

/** `/proc/self/mountinfo` writes space, tab, newline and backslash as octal escapes. */
const unescapeField = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

function cgroupMounts(mountinfo: string): Mount[] {
  return mountinfo.split("\n").flatMap((line): Mount[] => {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    const type = fields[dash + 1];
    if (dash < 0 || (type !== "cgroup" && type !== "cgroup2")) return [];
    return [
      {
        root: unescapeField(fields[3] ?? "/"),
        point: unescapeField(fields[4] ?? ""),
        version: type === "cgroup2" ? 2 : 1,
        options: (fields[dash + 3] ?? "").split(","),
      },
    ];
  });
}

/** This process's cgroup in each hierarchy: id 0 for cgroup v2, else a v1 hierarchy and its controllers. */
function ownCgroups(cgroup: string): Array<{ id: number; controllers: string[]; path: string }> {
  return cgroup.split("\n").flatMap((line) => {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    return m ? [{ id: Number(m[1]), controllers: m[2] ? m[2].split(",") : [], path: m[3]! }] : [];
  });
}

/** Where cgroup `path` of a hierarchy is under this mount of it; undefined when the mount does not show it. */
function inMount(mount: Mount, path: string): string | undefined {
  const root = mount.root === "/" ? "" : mount.root;
  if (path !== root && !path.startsWith(`${root}/`)) return undefined;
  const below = path.slice(root.length).replace(/^\/+/, "");
  return below === "" ? mount.point : join(mount.point, below);
}

const writable = (path: string) =>
  access(path, constants.W_OK).then(
    () => true,
    () => false,
  );

/**
 * The deepest cgroup from `own` up to the mount where this process may make cgroups and move processes (both
 * need writing there: the directory, and cgroup.procs of the cgroup above both ends of a move), with what
 * `offers` finds there (it finds nothing: undefined).
 */
async function deepestWritable<T>(
  own: string,
  mount: string,
  offers: (dir: string) => Promise<T | undefined>,
): Promise<{ dir: string; offered: T } | undefined> {
  for (let dir = own; ; dir = dirname(dir)) {
    if ((await writable(dir)) && (await writable(join(dir, "cgroup.procs")))) {
      const offered = await offers(dir);
      if (offered !== undefined) return { dir, offered };
    }
    if (dir === mount || dir === dirname(dir)) return undefined;
  }
}

/** cgroup v2: the controllers a cgroup's children get (its subtree_control), if it gives them any. */
async function enabledBelow(dir: string): Promise<Controller[] | undefined> {
  const text = await readFile(join(dir, "cgroup.subtree_control"), "utf8").catch(() => "");
  const enabled = text.trim().split(/\s+/);
  const controllers = CONTROLLERS.filter((c) => enabled.includes(c));
  return controllers.length > 0 ? controllers : undefined;
}

/**
 * Where this process may put cgroups for resource limits: on cgroup v2, the deepest cgroup at or above its
 * own that it may write and whose children get pids or memory (a cgroup holding processes, as its own does
 * unless it is the root, cannot give them any); for a controller v2 does not offer, the deepest cgroup it
 * may write in the controller's v1 hierarchy. Reads `/proc/self` (or `proc`) and the cgroup files.
 */
export async function findCgroupPlaces(proc = "/proc/self"): Promise<CgroupPlaces> {
  const [mountinfo, cgroup] = await Promise.all(
    ["mountinfo", "cgroup"].map((f) => readFile(join(proc, f), "utf8").catch(() => "")),
  );
  const mounts = cgroupMounts(mountinfo!);
  const own = ownCgroups(cgroup!);
  const places: CgroupPlace[] = [];
  const missing: CgroupPlaces["missing"] = {};
  const unified = own.find((c) => c.id === 0);
  const v2 = mounts.flatMap((m) => {
    const dir = m.version === 2 && unified ? inMount(m, unified.path) : undefined;
    return dir === undefined ? [] : [{ mount: m, dir }];
  })[0];
  const unifiedPlace = v2 && (await deepestWritable(v2.dir, v2.mount.point, enabledBelow));
  const offered = unifiedPlace?.offered ?? [];
  if (v2 && unifiedPlace)
    places.push({ version: 2, controllers: offered, mount: v2.mount.point, parent: unifiedPlace.dir });
  for (const controller of CONTROLLERS.filter((c) => !offered.includes(c))) {
    const ownV1 = own.find((c) => c.controllers.includes(controller));
    const mount = mounts.find((m) => m.version === 1 && m.options.includes(controller));
    const dir = mount && ownV1 ? inMount(mount, ownV1.path) : undefined;
    if (mount && dir !== undefined) {
      const known = places.find((p) => p.mount === mount.point);
      if (known) {
        known.controllers.push(controller);
        continue;
      }
      const parent = await deepestWritable(dir, mount.point, async () => true);
      if (parent) {
        places.push({ version: 1, controllers: [controller], mount: mount.point, parent: parent.dir });
        continue;
      }
      missing[controller] =
        `no cgroup of the v1 ${controller} hierarchy at or above this process's own (${dir}) may be written`;
    } else if (v2) {
      missing[controller] =
        `no cgroup at or above this process's own (${v2.dir}) that it may write enables the ${controller} controller for its children`;
    } else {
      missing[controller] = `no cgroup hierarchy with the ${controller} controller is mounted`;
    }
  }
  return { places, missing, mounts: [...new Set(mounts.map((m) => m.point))] };
}

let found: Promise<CgroupPlaces> | undefined;

/** `findCgroupPlaces()` of this process, looked for once. */
export function cgroupPlaces(): Promise<CgroupPlaces> {
  found ??= findCgroupPlaces();
  return found;
}
