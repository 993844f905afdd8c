import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { ensureLauncher } from "../launcher/ensure-launcher.js";
import type { SandboxPolicy } from "../policy/policy.js";
import { resolvePolicy } from "../policy/resolve.js";
import { runSandboxed, type SandboxRunOptions } from "../run/run-sandboxed.js";

/**
 * A scratch area for sandbox tests: `ro`, `rw`, `rwx` and `outside` directories, a `bin` directory holding
 * the compiled probe helper and a copy of the launcher, and a config home with no policy files in it.
 */
export interface Scratch {
  root: string;
  ro: string;
  rw: string;
  rwx: string;
  outside: string;
  bin: string;
  /** The helper that tries one forbidden thing (probe.c). */
  probe: string;
  /** The helper that makes sockets through io_uring (uring.c). */
  uring: string;
  launcher: string;
  env: NodeJS.ProcessEnv;
  /** A policy granting the system's programs, /proc/self, and the scratch directories by their names. */
  policy(extra?: object): Promise<SandboxPolicy>;
  run(command: string, args: string[], options?: Partial<SandboxRunOptions>): ReturnType<typeof runSandboxed>;
  cleanup(): void;
}

export async function scratch(): Promise<Scratch> {
  const root = mkdtempSync(join(tmpdir(), "sandbox-test-"));
  const dirs = Object.fromEntries(
    ["ro", "rw", "rwx", "outside", "bin", "config"].map((d) => [d, join(root, d)]),
  );
  for (const d of Object.values(dirs)) mkdirSync(d!);
  writeFileSync(join(dirs.ro!, "readable.txt"), "readable\n");
  writeFileSync(join(dirs.outside!, "secret.txt"), "secret\n");
  const [probe, uring] = await Promise.all(
    ["probe", "uring"].map(async (helper) => {
      const out = join(dirs.bin!, helper);
      await execa(process.env.CC ?? "cc", [
        "-O1",
        "-o",
        out,
        fileURLToPath(new URL(`./${helper}.c`, import.meta.url)),
      ]);
      return out;
    }),
  );
  const launcher = join(dirs.bin!, "ollie-sandbox-launcher");
  copyFileSync((await ensureLauncher()).path, launcher);
  const env: NodeJS.ProcessEnv = {
    PATH: "/usr/bin:/bin",
    HOME: join(root, "home"),
    XDG_CONFIG_HOME: dirs.config,
    TMPDIR: dirs.rw,
    LANG: "C",
  };
  const s: Scratch = {
    root,
    ro: dirs.ro!,
    rw: dirs.rw!,
    rwx: dirs.rwx!,
    outside: dirs.outside!,
    bin: dirs.bin!,
    probe: probe!,
    uring: uring!,
    launcher,
    env,
    policy: (extra = {}) =>
      resolvePolicy({
        withoutDefaults: true,
        env,
        layers: [
          {
            source: "test base",
            layer: {
              filesystem: {
                rox: ["/usr", "/bin", "/lib", "/lib64", dirs.bin!],
                // bash reads bash.bashrc when its input is a socket, as Node's pipes are
                ro: ["/etc/ld.so.cache", "/etc/bash.bashrc", "/proc/self", "/dev/zero", dirs.ro!],
                rw: [dirs.rw!, "/dev/null"],
                rwx: [dirs.rwx!],
              },
              network: { enabled: true, unrestricted: false },
              general: { ignore_missing: true },
            },
          },
          { source: "test", layer: extra },
        ],
      }),
    async run(command, args, options = {}) {
      return runSandboxed(command, args, {
        policy: options.policy ?? (await s.policy()),
        env,
        cwd: dirs.rw!,
        ...options,
      });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  return s;
}

/** Runs `script` with bash in the sandbox; resolves to its trimmed stdout and stderr and exit code. */
export async function bash(s: Scratch, script: string, options: Partial<SandboxRunOptions> = {}) {
  const r = await s.run("bash", ["-c", script], options);
  return { out: r.stdout.toString().trim(), err: r.stderr.toString().trim(), code: r.exitCode, result: r };
}
