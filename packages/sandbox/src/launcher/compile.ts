import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { SandboxUnavailableError } from "../errors.js";
import { packageRoot } from "./package-root.js";

export const LAUNCHER_NAME = "ollie-sandbox-launcher";

/** The architectures the launcher's seccomp filter knows, by Node's names. */
export type LauncherTarget = "x64" | "arm64";
export const LAUNCHER_TARGETS: readonly LauncherTarget[] = ["x64", "arm64"];

/**
 * Fixed flags, relative file names and no build id: the same source and compiler give the same bytes,
 * wherever the package sits. Statically linked where the C library allows it (no dynamic loader to start
 * at each launch), stripped.
 */
const CFLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-s", "-Wl,--build-id=none"];
const CROSS_COMPILERS: Record<LauncherTarget, string> = {
  x64: "x86_64-linux-gnu-gcc",
  arm64: "aarch64-linux-gnu-gcc",
};

/** What a launcher binary was built from, kept beside it as `ollie-sandbox-launcher.json`. */
export interface LauncherStamp {
  /** sha256 of the C sources, flags and target. */
  source: string;
  /** sha256 of the binary itself. */
  binary: string;
  target: LauncherTarget;
  static: boolean;
  /** The compiler's first line of `--version`. */
  compiler: string;
  /** The compiler command. */
  cc: string;
  /** Copied from the platform package, not compiled here. */
  prebuilt?: boolean;
}

export interface CompileOptions {
  /** Default: the architecture Node runs on. */
  target?: LauncherTarget;
  /** Default `$CC` then `cc` for this machine's architecture, Debian's cross compiler for the other. */
  compiler?: string;
  /** Refuse a dynamically linked build (prebuilt launchers must run on any distribution). */
  staticOnly?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The directory of the launcher's C sources. */
export function launcherSource(): string {
  return join(packageRoot(), "native");
}

async function sourceFiles(): Promise<string[]> {
  return (await readdir(launcherSource())).filter((f) => /\.[ch]$/.test(f)).sort();
}

export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex");

/** Identifies what a launcher for `target` is built from: its sources, the flags and the target. */
export async function sourceHash(target: LauncherTarget = process.arch as LauncherTarget): Promise<string> {
  const hash = createHash("sha256");
  for (const file of await sourceFiles()) {
    hash
      .update(`${file}\0`)
      .update(await readFile(join(launcherSource(), file)))
      .update("\0");
  }
  return hash.update(`${CFLAGS.join(" ")}\0${target}`).digest("hex");
}

export const stampPath = (binary: string): string => `${binary}.json`;

/**
 * Compiles the launcher into `dir` (atomically: a half-written binary is never found) and stamps it with
 * the hashes of its source and of itself.
 */
export async function compileLauncher(dir: string, options: CompileOptions = {}): Promise<LauncherStamp> {
  const env = options.env ?? process.env;
  const target = options.target ?? (process.arch as LauncherTarget);
  const native = target === process.arch;
  const compiler = options.compiler ?? (native ? env.CC || "cc" : CROSS_COMPILERS[target]);
  const path = join(dir, LAUNCHER_NAME);
  const tmp = `${path}.${process.pid}.tmp`;
  await mkdir(dir, { recursive: true });
  const files = await sourceFiles();
  const cc = (extra: string[]) =>
    execa(compiler, [...CFLAGS, ...extra, "-o", tmp, ...files], {
      cwd: launcherSource(),
      reject: false,
      env,
      extendEnv: false,
    });
  let result = await cc(["-static"]);
  const isStatic = !result.failed;
  const missing = (result as { code?: string }).code === "ENOENT";
  if (result.failed && !missing && !options.staticOnly) result = await cc([]);
  if (result.failed) {
    await rm(tmp, { force: true });
    const why = missing
      ? `no C compiler '${compiler}' was found`
      : `'${compiler}' failed to build it${options.staticOnly ? " statically" : ""}: ${String(result.stderr).trim().split("\n").slice(-3).join(" ")}`;
    throw new SandboxUnavailableError(
      `The sandbox launcher cannot be built: ${why}`,
      "Install the prebuilt launcher (the optional dependency @ollie/sandbox-linux-x64 or -arm64), or a C compiler (gcc or clang; set CC to choose one) and run `ollie-sandbox build`",
    );
  }
  const version = await execa(compiler, ["--version"], { reject: false, env, extendEnv: false });
  const stamp: LauncherStamp = {
    source: await sourceHash(target),
    binary: sha256(await readFile(tmp)),
    target,
    static: isStatic,
    compiler: String(version.stdout).split("\n")[0] ?? compiler,
    cc: compiler,
  };
  await rename(tmp, path);
  await writeFile(`${stampPath(path)}.tmp`, `${JSON.stringify(stamp, null, 2)}\n`);
  await rename(`${stampPath(path)}.tmp`, stampPath(path));
  return stamp;
}
