import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import {
  compileLauncher,
  LAUNCHER_NAME,
  LAUNCHER_TARGETS,
  type LauncherStamp,
  sha256,
  sourceHash,
} from "./compile.js";
import { packageRoot } from "./package-root.js";

/**
 * The per-platform packages' launchers, as the build made them: each matches the stamp pinned in this
 * package, is a static executable for its architecture, is what the committed source gives again, and runs
 * — natively, or under qemu-user for the other architecture where that is installed.
 */

const pinned = JSON.parse(readFileSync(join(packageRoot(), "dist", "prebuilt.json"), "utf8")) as Record<
  string,
  LauncherStamp
>;
const scratch = mkdtempSync(join(tmpdir(), "sandbox-prebuilt-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ELF_MACHINE = { x64: 62, arm64: 183 } as const;
const QEMU = { x64: "qemu-x86_64", arm64: "qemu-aarch64" } as const;
const ARCH_NAME = { x64: "x86_64", arm64: "aarch64" } as const;

/** The ELF machine, and whether any program header asks for an interpreter (a dynamic executable). */
function elf(bytes: Buffer): { machine: number; dynamic: boolean } {
  const phoff = Number(bytes.readBigUInt64LE(32));
  const size = bytes.readUInt16LE(54);
  const count = bytes.readUInt16LE(56);
  let dynamic = false;
  for (let i = 0; i < count; i++) dynamic ||= bytes.readUInt32LE(phoff + i * size) === 3; // PT_INTERP
  return { machine: bytes.readUInt16LE(18), dynamic };
}

const onPath = async (command: string) =>
  (await execa("sh", ["-c", `command -v ${command}`], { reject: false })).exitCode === 0;

describe.each(LAUNCHER_TARGETS.filter((t) => pinned[`linux-${t}`]))("the prebuilt %s launcher", (target) => {
  const stamp = pinned[`linux-${target}`]!;
  const binary = join(packageRoot(), "..", `sandbox-linux-${target}`, "bin", LAUNCHER_NAME);

  it("matches its pinned stamp, and is a static executable for its architecture", async () => {
    const bytes = readFileSync(binary);
    expect(sha256(bytes)).toBe(stamp.binary);
    expect(stamp).toMatchObject({ source: await sourceHash(target), target, static: true });
    expect(elf(bytes)).toEqual({ machine: ELF_MACHINE[target], dynamic: false });
  });

  it("is what the committed source gives again with the same compiler", async (ctx) => {
    if (!(await onPath(stamp.cc))) ctx.skip();
    const again = await compileLauncher(join(scratch, target), {
      target,
      staticOnly: true,
      compiler: stamp.cc,
    });
    if (again.compiler !== stamp.compiler) ctx.skip();
    expect(again.binary).toBe(stamp.binary);
  });

  it("runs: says its version, probes the kernel, refuses bad options and never runs unsandboxed", async (ctx) => {
    const native = target === process.arch;
    if (!native && !(await onPath(QEMU[target]))) ctx.skip();
    const run = (args: string[]) =>
      native
        ? execa(binary, args, { reject: false })
        : execa(QEMU[target], [binary, ...args], { reject: false });
    expect((await run(["--version"])).stdout).toBe(
      `ollie-sandbox-launcher 5 (Landlock ABI up to 7, ${ARCH_NAME[target]})`,
    );
    const probe = JSON.parse((await run(["--probe"])).stdout);
    expect(probe).toMatchObject({ arch: ARCH_NAME[target], launcherAbi: 7, revision: 5 });
    expect(await run(["--grace", "-1", "true"])).toMatchObject({
      exitCode: 125,
      stderr: "ollie-sandbox: --grace: '-1' is not a whole number from 0 to 3600000",
    });
    const r = await run(["--rox", "/usr,/bin,/lib,/lib64", "--", "/bin/echo", "inside"]);
    if (probe.abi === 0) {
      // qemu-user does not pass Landlock's system calls on: the launcher refuses rather than run unsandboxed.
      expect(r).toMatchObject({ exitCode: 125, stdout: "" });
      expect(r.stderr).toMatch(/Landlock is not available .* refusing to run unsandboxed/);
    } else {
      expect(r).toMatchObject({ exitCode: 0, stdout: "inside" });
    }
  });
});

it("the build made this machine's launcher", () => {
  expect(existsSync(join(packageRoot(), "..", `sandbox-linux-${process.arch}`, "bin", LAUNCHER_NAME))).toBe(
    true,
  );
});
