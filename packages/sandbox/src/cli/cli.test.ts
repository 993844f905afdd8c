import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../bin/ollie-sandbox.js", import.meta.url));
const config = mkdtempSync(join(tmpdir(), "sandbox-cli-"));
const env = { XDG_CONFIG_HOME: config, HOME: config, PATH: "/usr/bin:/bin" };
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

  it("run passes the command's status through, and check names a broken policy file", async () => {
    expect((await cli(["run", "--", "bash", "-c", "exit 7"])).exitCode).toBe(7);
    mkdirSync(join(config, "ollie"), { recursive: true });
    writeFileSync(join(config, "ollie", "sandbox.yaml"), "network:\n  enabled: maybe\n");
    const broken = await cli(["check"]);
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toBe(
      `ollie-sandbox: ${join(config, "ollie", "sandbox.yaml")}: network.enabled: Invalid input: expected boolean, received string`,
    );
    expect((await cli(["run", "--", "true"])).exitCode).toBe(125);
  });
});
