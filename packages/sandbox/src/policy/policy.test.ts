import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PolicyError } from "../errors.js";
import { launcherArgs } from "../launcher/launcher-args.js";
import { runSandboxed } from "../run/run-sandboxed.js";
import { expandPolicy, policyPaths, resolvePolicy } from "./resolve.js";

let config: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  config = mkdtempSync(join(tmpdir(), "sandbox-policy-"));
  mkdirSync(join(config, "ollie", "sandbox"), { recursive: true });
  env = { XDG_CONFIG_HOME: config, HOME: "/home/glenda" };
});
afterEach(() => rmSync(config, { recursive: true, force: true }));

const writeGlobal = (yaml: string) => writeFileSync(policyPaths(env).global, yaml);
const writeOverlay = (name: string, yaml: string) =>
  writeFileSync(join(policyPaths(env).overlays, `${name}.yaml`), yaml);

async function policyError(promise: Promise<unknown>): Promise<PolicyError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PolicyError);
  return err as PolicyError;
}

describe("layering", () => {
  it("lays the global file and a named overlay over the built-in defaults", async () => {
    writeGlobal(
      "general:\n  best_effort: true\nfilesystem:\n  ro: ['{HOME}/.config/ollie']\nnetwork:\n  connect_tcp: [8080]\n",
    );
    writeOverlay(
      "web",
      "filesystem:\n  rw: ['{XDG_CACHE_HOME}/web']\nnetwork:\n  connect_tcp: [443, 8443]\n",
    );
    const p = await resolvePolicy({ env, name: "web" });
    expect(p.sources).toEqual([
      "built-in defaults",
      policyPaths(env).global,
      join(policyPaths(env).overlays, "web.yaml"),
    ]);
    expect(p.bestEffort).toBe(true);
    expect(p.filesystem.ro).toContain("/etc/passwd");
    expect(p.filesystem.ro).toContain("{HOME}/.config/ollie");
    expect(p.filesystem.rw).toEqual(["{CWD}", "{TMPDIR}", "/dev/null", "{XDG_CACHE_HOME}/web"]);
    expect(p.network.connectTcp).toEqual([80, 443, 8080, 8443]);
  });

  it("replaces a list instead of adding to it when the layer says so, and overrides booleans", async () => {
    writeGlobal(
      "replace: [filesystem.rw, network.connect_tcp]\nfilesystem:\n  rw: ['{CWD}']\nnetwork:\n  connect_tcp: []\n  enabled: false\n",
    );
    const p = await resolvePolicy({ env });
    expect(p.filesystem.rw).toEqual(["{CWD}"]);
    expect(p.network).toMatchObject({ enabled: false, connectTcp: [] });
    expect(p.filesystem.rox).toContain("/usr");
  });

  it("starts from nothing when asked, and takes layers from code", async () => {
    const p = await resolvePolicy({
      env,
      withoutDefaults: true,
      layers: [{ source: "tool", layer: { filesystem: { ro: ["/x"] } } }],
    });
    expect(p).toMatchObject({
      filesystem: { ro: ["/x"], rox: [], rw: [], rwx: [] },
      network: { enabled: false },
      sources: ["tool"],
    });
  });

  it("needs a named overlay to exist", async () => {
    const err = await policyError(resolvePolicy({ env, name: "absent" }));
    expect(err.message).toBe(
      `${join(policyPaths(env).overlays, "absent.yaml")}: no sandbox policy named 'absent'`,
    );
    expect((await policyError(resolvePolicy({ env, name: "../etc" }))).message).toMatch(
      /is not a policy name/,
    );
  });
});

describe("templates", () => {
  it("expand at run time from the command's directory and environment", async () => {
    writeGlobal(
      "filesystem:\n  rw: ['{XDG_DATA_HOME}/x', '{XDG_STATE_HOME}', '{XDG_CACHE_HOME}', '{XDG_CONFIG_HOME}/c', '{OLLIE_SESSION}/work', '{XDG_RUNTIME_DIR}']\n",
    );
    const p = await resolvePolicy({ env });
    const e = expandPolicy(p, {
      cwd: "/work/project",
      env: {
        HOME: "/home/glenda",
        TMPDIR: "/var/tmp",
        OLLIE_SESSION: "/srv/s1",
        XDG_RUNTIME_DIR: "/run/user/1",
      },
    });
    expect(e.filesystem.rw).toEqual([
      "/work/project",
      "/var/tmp",
      "/dev/null",
      "/home/glenda/.local/share/x",
      "/home/glenda/.local/state",
      "/home/glenda/.cache",
      "/home/glenda/.config/c",
      "/srv/s1/work",
      "/run/user/1",
    ]);
  });

  it("refuse a variable that is used but not set, and a path that is not absolute, at the line given", async () => {
    writeGlobal("filesystem:\n  ro:\n    - /a\n    - '{OLLIE_MISSING}/x'\n");
    const p = await resolvePolicy({ env });
    expect(() => expandPolicy(p, { cwd: "/w", env: {} })).toThrow(
      `${policyPaths(env).global}:4:7: filesystem.ro[1]: {OLLIE_MISSING} is used but not set`,
    );
    writeGlobal("filesystem:\n  ro: ['relative/path']\n");
    const q = await resolvePolicy({ env });
    expect(() => expandPolicy(q, { cwd: "/w", env: {} })).toThrow(
      `${policyPaths(env).global}:2:8: filesystem.ro[0]: 'relative/path' is not an absolute path`,
    );
  });

  it("place an entry from code by its layer's name, and one from an overlay by its own file", async () => {
    writeOverlay("web", "filesystem:\n  rw: ['{OLLIE_WEB}']\n");
    const p = await resolvePolicy({
      env,
      name: "web",
      layers: [{ source: "tool x", layer: { filesystem: { ro: ["{OLLIE_X}"] } } }],
    });
    expect(() => expandPolicy(p, { cwd: "/w", env: { OLLIE_X: "/x" } })).toThrow(
      `${join(policyPaths(env).overlays, "web.yaml")}:2:8: filesystem.rw[0]: {OLLIE_WEB} is used but not set`,
    );
    expect(() => expandPolicy(p, { cwd: "/w", env: { OLLIE_WEB: "/web" } })).toThrow(
      "tool x: filesystem.ro[0]: {OLLIE_X} is used but not set",
    );
  });
});

describe("validation errors name the file, the key and the problem", () => {
  const cases: Array<[string, string, string]> = [
    [
      "a YAML syntax error",
      "filesystem:\n  ro: [unclosed\n",
      "3:1: not YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ],
    [
      "an unknown top-level key",
      "filesytem:\n  ro: []\n",
      "1:1: filesytem: unknown key (the keys are: general, filesystem, network, limits, replace)",
    ],
    [
      "an unknown nested key",
      "network:\n  enable: true\n",
      "2:3: network.enable: unknown key (the keys are: enabled, unrestricted, bind_tcp, connect_tcp)",
    ],
    [
      "a boolean written as text",
      "general:\n  best_effort: 'yes'\n",
      "2:16: general.best_effort: Invalid input: expected boolean, received string",
    ],
    [
      "a port out of range",
      "network:\n  connect_tcp: [70000]\n",
      "2:17: network.connect_tcp[0]: a port is at most 65535",
    ],
    [
      "a port that is not whole",
      "network:\n  bind_tcp: [80.5]\n",
      "2:14: network.bind_tcp[0]: a port is a whole number",
    ],
    ["an empty path", "filesystem:\n  rw: ['']\n", "2:8: filesystem.rw[0]: an empty path"],
    [
      "a list given as one value",
      "filesystem:\n  rox: /usr\n",
      "2:8: filesystem.rox: Invalid input: expected array, received string",
    ],
    [
      "an unknown template variable",
      "filesystem:\n  ro: ['{HOMEDIR}/x']\n",
      "2:8: filesystem.ro[0]: unknown template variable {HOMEDIR} (known: {CWD}, {HOME}, {TMPDIR}, {XDG_CONFIG_HOME}, {XDG_DATA_HOME}, {XDG_CACHE_HOME}, {XDG_STATE_HOME}, {XDG_RUNTIME_DIR} and {OLLIE_*})",
    ],
    [
      "an unknown list to replace",
      "replace: [filesystem.all]\n",
      '1:11: replace[0]: Invalid option: expected one of "filesystem.ro"|"filesystem.rox"|"filesystem.rw"|"filesystem.rwx"|"network.bind_tcp"|"network.connect_tcp"',
    ],
    [
      "a process limit that is not a count",
      "limits:\n  processes: 12.5\n",
      '2:14: limits.processes: a number of processes from 1 to 4194304, or "unlimited"',
    ],
    [
      "a memory limit in a unit of powers of ten",
      "limits:\n  memory: 2GB\n",
      '2:11: limits.memory: a size such as 512MiB or 2GiB, a share of the RAM such as 25%, or "unlimited"',
    ],
    [
      "a share of the RAM above all of it",
      "limits:\n  memory: 150%\n",
      '2:11: limits.memory: a size such as 512MiB or 2GiB, a share of the RAM such as 25%, or "unlimited"',
    ],
    [
      "a CPU time in days",
      "limits:\n  cpu_time: 2d\n",
      '2:13: limits.cpu_time: a duration such as 90s, 10m or 1h (a number is seconds), or "unlimited"',
    ],
    [
      "an unknown limit",
      "limits:\n  threads: 10\n",
      "2:3: limits.threads: unknown key (the keys are: processes, memory, file_size, cpu_time)",
    ],
    [
      "a document that is not a mapping",
      "- just\n- a list\n",
      "1:1: Invalid input: expected object, received array",
    ],
  ];
  it.each(cases)("%s", async (_what, yaml, message) => {
    writeGlobal(yaml);
    const err = await policyError(resolvePolicy({ env }));
    expect(err.file).toBe(policyPaths(env).global);
    expect(err.message).toBe(`${policyPaths(env).global}:${message}`);
  });

  it("a file that cannot be read", async () => {
    mkdirSync(policyPaths(env).global);
    expect((await policyError(resolvePolicy({ env }))).message).toMatch(/sandbox\.yaml: cannot read: EISDIR/);
  });

  it("an empty file is an empty layer", async () => {
    writeGlobal("# nothing here yet\n");
    expect((await resolvePolicy({ env })).sources).toHaveLength(2);
  });
});

describe("limits", () => {
  it("default to 512 tasks and a quarter of the RAM per group, 1 GiB files, an hour of CPU per process, no user namespaces", async () => {
    const p = await resolvePolicy({ env });
    expect(p.limits).toEqual({
      processes: 512,
      memory: { share: 0.25 },
      fileSize: 2 ** 30,
      cpuTime: 3600,
    });
    expect(p.userNamespaces).toBe(false);
  });

  it("are replaced by the layers that set them, each on its own, and lifted by 'unlimited'", async () => {
    writeGlobal("limits:\n  processes: 64\n  memory: 1.5GiB\n  cpu_time: 10m\n");
    writeOverlay(
      "big",
      "limits:\n  memory: unlimited\n  file_size: 64M\ngeneral:\n  user_namespaces: true\n",
    );
    const p = await resolvePolicy({ env, name: "big" });
    expect(p.limits).toEqual({ processes: 64, memory: null, fileSize: 64 * 2 ** 20, cpuTime: 600 });
    expect(p.userNamespaces).toBe(true);
  });

  it("become launcher options: rlimits without the command's cgroups, only those cgroups cannot hold with them", async () => {
    writeGlobal("limits:\n  processes: 64\n  memory: 50%\n  file_size: 1KiB\n  cpu_time: 90s\n");
    const p = expandPolicy(await resolvePolicy({ env, withoutDefaults: true }), { cwd: "/", env: {} });
    const half = Math.floor(totalmem() / 2 / 4096) * 4096;
    const rlimits = ["--rlimit-fsize", "1024", "--rlimit-cpu", "90"];
    expect(launcherArgs(p)).toEqual([
      "--no-inet",
      "--rlimit-nproc",
      "64",
      "--rlimit-data",
      String(half),
      ...rlimits,
      "--",
    ]);
    const cgroups = {
      dirs: ["/cg/pids/g", "/cg/memory/g"],
      controllers: new Set(["pids", "memory"] as const),
    };
    expect(launcherArgs(p, { cgroups })).toEqual([
      "--no-inet",
      "--cgroup",
      "/cg/pids/g",
      "--cgroup",
      "/cg/memory/g",
      ...rlimits,
      "--",
    ]);
  });
});

describe("a policy that grants nothing", () => {
  it("runs nothing", async () => {
    const policy = await resolvePolicy({ env, withoutDefaults: true });
    expect(launcherArgs(expandPolicy(policy, { cwd: "/", env: {} }))).toEqual(["--no-inet", "--"]);
    const r = await runSandboxed("/usr/bin/true", [], { policy, env: {}, cwd: "/" });
    expect(r).toMatchObject({
      exitCode: 126,
      launcherError: "/usr/bin/true: cannot execute: Permission denied",
    });
  });
});
