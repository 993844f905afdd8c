import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { SandboxUnavailableError } from "../errors.js";
import { packageRoot } from "./package-root.js";

const CFLAGS = ["-O2", "-Wall", "-Wextra", "-std=gnu11"];
const BINARY = "ollie-sandbox-launcher";

/** A launcher binary built from this package's source. */
export interface Launcher {
  path: string;
  /** Identifies the source, flags and architecture it was built from. */
  hash: string;
}

export interface EnsureOptions {
  /** Where the build step puts the launcher (default: the package's `bin/`). */
  binDir?: string;
  /** Where to build when `binDir` cannot be written (default `$XDG_CACHE_HOME/ollie/sandbox`). */
  cacheDir?: string;
  /** The C compiler (default `$CC`, then `cc`). */
  compiler?: string;
  env?: NodeJS.ProcessEnv;
}

export function launcherSource(): string {
  return join(packageRoot(), "native", "ollie-sandbox.c");
}

async function sourceHash(source: string): Promise<string> {
  const text = await readFile(source);
  return createHash("sha256")
    .update(text)
    .update(`\0${CFLAGS.join(" ")}\0${process.arch}`)
    .digest("hex");
}

async function current(path: string, hash: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await readFile(`${path}.sha256`, "utf8")).trim() === hash;
  } catch {
    return false;
  }
}

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Compiles the launcher into `dir` (atomically: a half-written binary is never found). */
export async function compileLauncher(dir: string, options: EnsureOptions = {}): Promise<Launcher> {
  const env = options.env ?? process.env;
  const compiler = options.compiler ?? env.CC ?? "cc";
  const source = launcherSource();
  const hash = await sourceHash(source);
  const path = join(dir, BINARY);
  const tmp = `${path}.${process.pid}.tmp`;
  await mkdir(dir, { recursive: true });
  const cc = (extra: string[]) =>
    execa(compiler, [...CFLAGS, ...extra, "-o", tmp, source], { reject: false, env, extendEnv: false });
  // Static when the C library allows it: no dynamic loader at each launch, which is about a third of what
  // the launcher adds to starting a command. A plain build otherwise.
  let result = await cc(["-static"]);
  if (result.failed && (result as { code?: string }).code !== "ENOENT") result = await cc([]);
  if (result.failed) {
    await rm(tmp, { force: true });
    const why =
      (result as { code?: string }).code === "ENOENT"
        ? `no C compiler '${compiler}' was found`
        : `'${compiler}' failed to build the launcher: ${String(result.stderr).trim().split("\n").slice(-3).join(" ")}`;
    throw new SandboxUnavailableError(
      `The sandbox launcher is missing and ${why}`,
      "Install a C compiler (gcc or clang; set CC to choose one) and run `ollie-sandbox build`",
    );
  }
  await rename(tmp, path);
  await writeFile(`${path}.sha256.tmp`, `${hash}\n`);
  await rename(`${path}.sha256.tmp`, `${path}.sha256`);
  return { path, hash };
}

let ensured: Promise<Launcher> | undefined;

/**
 * The launcher, built if it is missing or older than its source: the package's `bin/` is used when it is
 * current (the build step puts it there), otherwise a cached build, otherwise it is compiled now — into `bin/`
 * if that can be written, else into the cache. Remembered for the life of the process.
 */
export function ensureLauncher(options: EnsureOptions = {}): Promise<Launcher> {
  if (process.platform !== "linux") {
    return Promise.reject(
      new SandboxUnavailableError(
        `Sandboxed commands need Linux (Landlock); this is ${process.platform}`,
        "Run Ollie's tool server on a Linux machine or VM",
      ),
    );
  }
  ensured ??= locateLauncher(options).catch((err: unknown) => {
    ensured = undefined;
    throw err;
  });
  return ensured;
}

/** `ensureLauncher` without remembering: finds a current launcher or builds one. */
export async function locateLauncher(options: EnsureOptions = {}): Promise<Launcher> {
  const env = options.env ?? process.env;
  const hash = await sourceHash(launcherSource());
  const packaged = options.binDir ?? join(packageRoot(), "bin");
  const cache =
    options.cacheDir ?? join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "ollie", "sandbox");
  for (const dir of [packaged, cache]) {
    const path = join(dir, BINARY);
    if (await current(path, hash)) return { path, hash };
  }
  return compileLauncher((await writable(packaged)) ? packaged : cache, options);
}
