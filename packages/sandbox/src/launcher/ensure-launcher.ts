import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ollieDirs } from "@ollie/config-file/dirs";
import { SandboxUnavailableError } from "../errors.js";
import { compileLauncher, LAUNCHER_NAME, type LauncherStamp, sourceHash, stampPath } from "./compile.js";
import { prebuiltLauncher } from "./prebuilt.js";
import { checkLauncher, fileHash } from "./verify.js";

/** The launcher binary in use. */
export interface Launcher {
  path: string;
  /** The sha256 of the binary; it is checked again before every use. */
  hash: string;
  /** The prebuilt binary of the platform package, or one compiled on this machine. */
  origin: "prebuilt" | "compiled";
  /**
   * The directory launchers are kept in. No policy may grant writing to it (`sandboxCommand` refuses one
   * that does), so no sandboxed command can replace the launcher that will confine the next.
   */
  home: string;
}

export interface EnsureOptions {
  /** Where launchers are kept (default `$XDG_CACHE_HOME/ollie/sandbox`). */
  cacheDir?: string;
  /** The C compiler, when one must be built (default `$CC`, then `cc`). */
  compiler?: string;
  /** The prebuilt launcher to use (default: the `@ollie/sandbox-linux-<arch>` package's), or false for none. */
  prebuilt?: string | false;
  env?: NodeJS.ProcessEnv;
}

/** Where launchers are kept: `$XDG_CACHE_HOME/ollie/sandbox`. */
export function launcherHome(options: EnsureOptions = {}): string {
  const env = options.env ?? process.env;
  return options.cacheDir ?? join(ollieDirs(env).cache, "sandbox");
}

async function readStamp(path: string): Promise<LauncherStamp | undefined> {
  try {
    return JSON.parse(await readFile(stampPath(path), "utf8")) as LauncherStamp;
  } catch {
    return undefined;
  }
}

/** Writes a verified prebuilt launcher's bytes (not its file, which could change after the check). */
async function install(path: string, bytes: Buffer, stamp: LauncherStamp): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, bytes, { mode: 0o755 });
  await chmod(tmp, 0o755);
  await rename(tmp, path);
  await writeFile(`${stampPath(path)}.tmp`, `${JSON.stringify(stamp, null, 2)}\n`);
  await rename(`${stampPath(path)}.tmp`, stampPath(path));
}

/**
 * Finds or makes the launcher for this package's sources, without remembering it: one already kept under
 * `launcherHome()` whose bytes match its stamp; else the platform package's prebuilt binary, whose bytes
 * must match the hash this package was released with, copied there; else one compiled there now.
 */
export async function locateLauncher(options: EnsureOptions = {}): Promise<Launcher> {
  const home = launcherHome(options);
  const source = await sourceHash();
  // One directory per source, so that installs of different versions do not replace each other's launcher.
  const path = join(home, source.slice(0, 16), LAUNCHER_NAME);
  const kept = await readStamp(path);
  if (kept?.source === source && (await fileHash(path).catch(() => undefined)) === kept.binary) {
    return { path, hash: kept.binary, origin: kept.prebuilt ? "prebuilt" : "compiled", home };
  }
  const prebuilt = options.prebuilt === false ? undefined : await prebuiltLauncher(options.prebuilt);
  if (prebuilt) {
    const stamp: LauncherStamp = { ...prebuilt.pin, prebuilt: true };
    await install(path, prebuilt.bytes, stamp);
    return { path, hash: stamp.binary, origin: "prebuilt", home };
  }
  return buildLauncher(options);
}

/** Compiles the launcher for this package's sources into `launcherHome()`, replacing one kept there. */
export async function buildLauncher(options: EnsureOptions = {}): Promise<Launcher> {
  const home = launcherHome(options);
  const dir = join(home, (await sourceHash()).slice(0, 16));
  const built = await compileLauncher(dir, {
    ...(options.compiler !== undefined && { compiler: options.compiler }),
    ...(options.env !== undefined && { env: options.env }),
  });
  return { path: join(dir, LAUNCHER_NAME), hash: built.binary, origin: "compiled", home };
}

let located: Promise<Launcher> | undefined;

/**
 * The launcher, found or made once per process (see `locateLauncher`) and checked before every use: if its
 * bytes changed since, this call fails and the next one looks for it again.
 */
export async function ensureLauncher(options: EnsureOptions = {}): Promise<Launcher> {
  if (process.platform !== "linux") {
    throw new SandboxUnavailableError(
      `Sandboxed commands need Linux (Landlock); this is ${process.platform}`,
      "Run Ollie's tool server on a Linux machine or VM",
    );
  }
  located ??= locateLauncher(options);
  const attempt = located;
  try {
    const launcher = await attempt;
    await checkLauncher(launcher.path, launcher.hash);
    return launcher;
  } catch (err) {
    if (located === attempt) located = undefined;
    throw err;
  }
}
