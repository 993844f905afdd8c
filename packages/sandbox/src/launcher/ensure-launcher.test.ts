import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "../errors.js";
import { compileLauncher, locateLauncher } from "./ensure-launcher.js";
import { probeLandlock } from "./probe.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-launcher-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("building the launcher", () => {
  it("compiles it with the system C compiler and records what it was built from", async () => {
    const built = await compileLauncher(dir);
    expect(built.path).toBe(join(dir, "ollie-sandbox-launcher"));
    expect(readFileSync(`${built.path}.sha256`, "utf8").trim()).toBe(built.hash);
    const probe = await probeLandlock(built.path);
    expect(probe.launcherAbi).toBe(7);
    expect(probe.abi).toBe(Math.min(probe.kernelAbi, 7));
    expect((await probeLandlock(built.path, 4)).abi).toBe(4);
  });

  it("rebuilds a launcher older than its source, and reuses a current one", async () => {
    const first = await locateLauncher({ binDir: dir, cacheDir: join(dir, "cache") });
    const builtAt = statSync(first.path).mtimeMs;
    expect((await locateLauncher({ binDir: dir, cacheDir: join(dir, "cache") })).path).toBe(first.path);
    expect(statSync(first.path).mtimeMs).toBe(builtAt);
    writeFileSync(`${first.path}.sha256`, "an older source\n");
    const rebuilt = await locateLauncher({ binDir: dir, cacheDir: join(dir, "cache") });
    expect(readFileSync(`${rebuilt.path}.sha256`, "utf8").trim()).toBe(first.hash);
  });

  it("builds into the cache when the package's directory cannot be written", async () => {
    const built = await locateLauncher({ binDir: "/dev/null/bin", cacheDir: join(dir, "cache") });
    expect(built.path).toBe(join(dir, "cache", "ollie-sandbox-launcher"));
  });

  it("says what to do when there is no C compiler, or it fails", async () => {
    const missing = await compileLauncher(dir, { compiler: "/nonexistent/cc" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SandboxUnavailableError);
    expect((missing as Error).message).toBe(
      "The sandbox launcher is missing and no C compiler '/nonexistent/cc' was found. Install a C compiler (gcc or clang; set CC to choose one) and run `ollie-sandbox build`",
    );
    await expect(compileLauncher(dir, { compiler: "false" })).rejects.toThrow(
      "'false' failed to build the launcher",
    );
  });
});
