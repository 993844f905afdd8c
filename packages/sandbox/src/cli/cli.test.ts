import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { resourceGroups } from "../limits/resource-groups.js";

const bin = fileURLToPath(new URL("../../bin/ollie-sandbox.js", import.meta.url));
const config = mkdtempSync(join(tmpdir(), "sandbox-cli-"));
// The launcher is kept in the user's cache, as it is for every program; a cache under {TMPDIR}, which the
// default policy lets commands write, would be refused.
const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
const env = { XDG_CONFIG_HOME: config, HOME: config, XDG_CACHE_HOME: cache, PATH: "/usr/bin:/bin" };
const cli = (args: string[]) =>
  execa(process.execPath, [bin, ...args], { env, extendEnv: false, reject: false, cwd: config });
afterAll(() => rmSync(config, { recursive: true, force: true }));

describe("ollie-sandbox", () => {
  it("check reports the kernel's ABI, the policy's grants and whether every rule holds", async () => {
    const r = await cli(["check"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^landlock: kernel ABI (\d+), used ABI \1/m);
    expect(r.stdout).toMatch(/^policy: built-in defaults$/m);
    expect(r.stdout).toContain(`rw: ${config} /tmp /dev/null`);
    expect(r.stdout).toMatch(/^network: TCP connect 80,443; bind none$/m);
    expect(r.stdout).toMatch(/^verdict: every rule is enforced$/m);
  });

  it("check says how each limit is enforced, and leaves no cgroup of its own behind", async () => {
    mkdirSync(join(config, "ollie"), { recursive: true });
    const layer = join(config, "ollie", "sandbox.yaml");
    writeFileSync(layer, "limits:\n  processes: 100\n  memory: 1GiB\n  file_size: 64MiB\n  cpu_time: 10m\n");
    const r = await cli(["check"]);
    rmSync(layer);
    expect(r.exitCode).toBe(0);
    const groups = await resourceGroups();
    const cgroup = (controller: string) =>
      new RegExp(`by cgroup v[12] \\(the ${controller} controller, in (/\\S+/ollie-\\d+)\\)$`);
    const line = (name: string) => r.stdout.split("\n").find((l) => l.startsWith(`  ${name}: `)) ?? "";
    if (groups.placeOf("pids")) expect(line("processes")).toMatch(cgroup("pids"));
    else
      expect(line("processes")).toMatch(
        /^ {2}processes: 100 tasks per (group: not enforced|command, by rlimit)/,
      );
    if (groups.placeOf("memory")) expect(line("memory")).toMatch(cgroup("memory"));
    else expect(line("memory")).toBe("  memory: 1 GiB per process, by rlimit (RLIMIT_DATA)");
    expect(line("file size")).toBe("  file size: 64 MiB per process, by rlimit (RLIMIT_FSIZE)");
    expect(line("CPU time")).toBe("  CPU time: 10 min per process, by rlimit (RLIMIT_CPU)");
    expect(r.stdout).toMatch(/^user namespaces: refused \(seccomp\)$/m);
    // The directory check made to see what the kernel lets it do is gone with it.
    for (const [, dir] of r.stdout.matchAll(/ in (\/\S+\/ollie-\d+)\)$/gm))
      expect(existsSync(dir!)).toBe(false);
  });

  it("run passes the command's status through, and check names a broken policy file", async () => {
    expect((await cli(["run", "--", "bash", "-c", "exit 7"])).exitCode).toBe(7);
    // Killed by the command's own signal, it runs no exit handlers: it removed its cgroups before.
    const killed = cli(["run", "--", "bash", "-c", "kill -KILL $$"]);
    expect((await killed).signal).toBe("SIGKILL");
    const groups = await resourceGroups();
    expect(groups.places.filter((p) => existsSync(join(p.parent, `ollie-${killed.pid}`)))).toEqual([]);
    mkdirSync(join(config, "ollie"), { recursive: true });
    writeFileSync(join(config, "ollie", "sandbox.yaml"), "network:\n  enabled: maybe\n");
    const broken = await cli(["check"]);
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toBe(
      `ollie-sandbox: ${join(config, "ollie", "sandbox.yaml")}:2:12: network.enabled: Invalid input: expected boolean, received string`,
    );
    expect((await cli(["run", "--", "true"])).exitCode).toBe(125);
  });

  it("check and run agree: a policy that run refuses, check does not call enforced", async () => {
    const layer = join(config, "ollie", "sandbox.yaml");
    mkdirSync(join(config, "ollie"), { recursive: true });
    for (const yaml of [
      `filesystem:\n  rw: ['${cache}/ollie']\n`,
      "filesystem:\n  ro: ['{OLLIE_UNSET}']\n",
    ]) {
      writeFileSync(layer, yaml);
      const checked = await cli(["check"]);
      const ran = await cli(["run", "--", "true"]);
      expect(checked.exitCode).toBe(1);
      expect(ran.exitCode).toBe(125);
      const why = ran.stderr.replace(/^ollie-sandbox: /, "");
      expect(checked.stdout).toContain(`verdict: refuses to run: ${why}`);
    }
    rmSync(layer);
  });

  it("has a launcher that says what it is and how to use it", async () => {
    const launcher = (await cli(["check"])).stdout.match(/^launcher: (\S+)/m)![1]!;
    const version = await execa(launcher, ["--version"]);
    expect(version.stdout).toMatch(/^ollie-sandbox-launcher 5 \(Landlock ABI up to 7, (x86_64|aarch64)\)$/);
    const help = await execa(launcher, ["--help"]);
    for (const flag of [
      "--ro",
      "--rox",
      "--rw",
      "--rwx",
      "--bind-tcp",
      "--connect-tcp",
      "--no-inet",
      "--grace",
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${flag} `, "m"));
    }
    const bad = await execa(launcher, ["--abi-cap", "abc", "true"], { reject: false });
    expect(bad).toMatchObject({
      exitCode: 125,
      stderr: "ollie-sandbox: --abi-cap: 'abc' is not a whole number from 0 to 99",
    });
    const port = await execa(launcher, ["--connect-tcp", "80,4x3", "true"], { reject: false });
    expect(port.stderr).toBe("ollie-sandbox: --connect-tcp: '4x3' is not a whole number from 0 to 65535");
    const open = await execa(
      launcher,
      ["--unrestricted-filesystem", "--unrestricted-network", "--unrestricted-scope", "true"],
      { reject: false },
    );
    expect(open.exitCode).toBe(125);
    expect(open.stderr).toMatch(/refusing to run: this command line leaves no Landlock restriction at all/);
  });
});
