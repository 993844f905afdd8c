import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "../errors.js";
import { compileLauncher, LAUNCHER_NAME, sha256, sourceHash, stampPath } from "./compile.js";
import { locateLauncher } from "./ensure-launcher.js";
import { prebuiltLauncher } from "./prebuilt.js";
import { probeLandlock } from "./probe.js";
import { checkLauncher } from "./verify.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-launcher-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytesOf = (path: string) => readFileSync(path);

describe("building the launcher", () => {
  it("compiles it statically and reproducibly into the cache when there is no prebuilt one, stamped with the hashes of its source and itself, then reuses it", async () => {
    const a = await compileLauncher(join(dir, "a"));
    const cache = join(dir, "cache");
    const built = await locateLauncher({ cacheDir: cache, prebuilt: false });
    expect(built).toMatchObject({ origin: "compiled", home: cache, hash: a.binary });
    expect(built.path).toBe(join(cache, (await sourceHash()).slice(0, 16), LAUNCHER_NAME));
    expect(a).toMatchObject({ source: await sourceHash(), static: true, target: process.arch });
    const path = join(dir, "a", LAUNCHER_NAME);
    expect(sha256(bytesOf(path))).toBe(a.binary);
    expect(JSON.parse(readFileSync(stampPath(path), "utf8"))).toEqual(a);
    expect(JSON.parse(readFileSync(stampPath(built.path), "utf8"))).toEqual(a);
    const probe = await probeLandlock(path);
    expect(probe).toMatchObject({ launcherAbi: 7, revision: 5, abi: Math.min(probe.kernelAbi, 7) });
    expect((await probeLandlock(path, 4)).abi).toBe(4);
    const builtAt = statSync(built.path).mtimeMs;
    expect(await locateLauncher({ cacheDir: cache, prebuilt: false })).toEqual(built);
    expect(statSync(built.path).mtimeMs).toBe(builtAt);
    // The only test that compiles (twice): two static builds with optimisation take seconds on a quiet
    // machine and far longer on a busy one. The others take the prebuilt launcher, which is copied.
  }, 180_000);

  it("says what to do when there is no C compiler, or it fails", async () => {
    const missing = await compileLauncher(dir, { compiler: "/nonexistent/cc" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SandboxUnavailableError);
    expect((missing as Error).message).toBe(
      "The sandbox launcher cannot be built: no C compiler '/nonexistent/cc' was found. Install the prebuilt launcher (the optional dependency @ollie/sandbox-linux-x64 or -arm64), or a C compiler (gcc or clang; set CC to choose one) and run `ollie-sandbox build`",
    );
    await expect(compileLauncher(dir, { compiler: "false" })).rejects.toThrow("'false' failed to build it");
  });
});

describe("finding the launcher", () => {
  it("never uses a binary placed beside a copied stamp: it puts a true one over it", async () => {
    const real = await locateLauncher({ cacheDir: dir });
    const marker = join(dir, "fake-ran");
    writeFileSync(real.path, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(real.path, 0o755);
    const again = await locateLauncher({ cacheDir: dir });
    expect(again.hash).toBe(real.hash);
    expect(sha256(bytesOf(again.path))).toBe(real.hash);
    await probeLandlock(again.path);
    expect(() => statSync(marker)).toThrow();
  });

  it("refuses a launcher whose bytes changed after they were checked", async () => {
    const launcher = await locateLauncher({ cacheDir: dir });
    await checkLauncher(launcher.path, launcher.hash);
    const bytes = bytesOf(launcher.path);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    writeFileSync(launcher.path, bytes);
    await expect(checkLauncher(launcher.path, launcher.hash)).rejects.toThrow(
      `The sandbox launcher ${launcher.path} is not the one that was built (sha256 ${sha256(bytes)}, expected ${launcher.hash})`,
    );
  });
});

describe("the prebuilt launcher", () => {
  it("is used when its bytes match the hash this package was released with, and copied into the cache", async () => {
    const prebuilt = await prebuiltLauncher();
    expect(prebuilt, "the build puts this machine's prebuilt launcher in its package").toBeDefined();
    const launcher = await locateLauncher({ cacheDir: dir });
    expect(launcher).toMatchObject({ origin: "prebuilt", hash: prebuilt!.pin.binary });
    expect(bytesOf(launcher.path).equals(prebuilt!.bytes)).toBe(true);
    expect((await probeLandlock(launcher.path)).revision).toBe(5);
  });

  it("is refused, never used, when its bytes are not the released ones", async () => {
    const prebuilt = await prebuiltLauncher();
    const tampered = join(dir, "tampered");
    const bytes = Buffer.from(prebuilt!.bytes);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    writeFileSync(tampered, bytes, { mode: 0o755 });
    await expect(locateLauncher({ cacheDir: join(dir, "cache"), prebuilt: tampered })).rejects.toThrow(
      `The prebuilt sandbox launcher ${tampered} is not the one @ollie/sandbox was released with`,
    );
    copyFileSync("/bin/true", tampered);
    await expect(locateLauncher({ cacheDir: join(dir, "cache"), prebuilt: tampered })).rejects.toThrow(
      SandboxUnavailableError,
    );
  });
});
