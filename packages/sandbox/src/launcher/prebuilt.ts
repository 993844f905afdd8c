import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { SandboxUnavailableError } from "../errors.js";
import { LAUNCHER_NAME, type LauncherStamp, type LauncherTarget, sha256, sourceHash } from "./compile.js";
import { packageRoot } from "./package-root.js";

/** The prebuilt launchers' stamps as this package was released with them, in `dist/prebuilt.json`. */
export type LauncherStamps = Partial<Record<`linux-${LauncherTarget}`, LauncherStamp>>;

export const PREBUILT_MANIFEST = "prebuilt.json";

async function pinned(key: string): Promise<LauncherStamp | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(packageRoot(), "dist", PREBUILT_MANIFEST), "utf8"));
    return (manifest as Record<string, LauncherStamp>)[key];
  } catch {
    return undefined;
  }
}

/** Where the platform package's launcher is, if that package is installed. */
function platformBinary(key: string): string | undefined {
  try {
    const require = createRequire(join(packageRoot(), "package.json"));
    return join(dirname(require.resolve(`@ollie/sandbox-${key}/package.json`)), "bin", LAUNCHER_NAME);
  } catch {
    return undefined;
  }
}

/**
 * The prebuilt launcher for this machine — its bytes, checked against the hash this package was released
 * with — or undefined when there is none for these sources (not installed, another architecture, or sources
 * changed since). Bytes that do not match their pinned hash are refused, never used.
 */
export async function prebuiltLauncher(
  path: string | undefined = platformBinary(`linux-${process.arch}`),
): Promise<{ bytes: Buffer; pin: LauncherStamp } | undefined> {
  const pin = await pinned(`linux-${process.arch}`);
  if (!pin || path === undefined || pin.source !== (await sourceHash())) return undefined;
  const bytes = await readFile(path).catch(() => undefined);
  if (bytes === undefined) return undefined;
  const actual = sha256(bytes);
  if (actual !== pin.binary) {
    throw new SandboxUnavailableError(
      `The prebuilt sandbox launcher ${path} is not the one @ollie/sandbox was released with (sha256 ${actual}, expected ${pin.binary}); nothing runs with it`,
      `Reinstall @ollie/sandbox-linux-${process.arch}`,
    );
  }
  return { bytes, pin };
}
