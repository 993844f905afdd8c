import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePolicy, withLayer } from "../policy/resolve.js";
import { runSandboxed } from "./run-sandboxed.js";

/**
 * What a tool does on an ordinary day keeps working inside the sandbox, under the built-in default policy:
 * interpreters, their child processes and threads, git, npm over the network, name resolution.
 */

const work = mkdtempSync(join(tmpdir(), "sandbox-everyday-"));
const tmp = join(work, ".tmp");
mkdirSync(tmp);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const env = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: work,
  TMPDIR: tmp,
  npm_config_cache: join(tmp, "npm-cache"),
  npm_config_update_notifier: "false",
};
const policy = withLayer(
  await resolvePolicy({ env: { HOME: work, XDG_CONFIG_HOME: join(work, "no-config") } }),
  // Node may live outside /usr (nvm, a tarball): its installation is readable and executable, as toolsrv grants it.
  { filesystem: { rox: [dirname(dirname(process.execPath))] } },
  "node",
);

async function sh(script: string) {
  const r = await runSandboxed("sh", ["-c", script], { policy, cwd: work, env, timeoutMs: 120_000 });
  return { out: r.stdout.toString().trim(), err: r.stderr.toString().trim(), code: r.exitCode };
}

describe("under the default policy", () => {
  it("node runs, with worker threads, child processes and its own memory figures", async () => {
    writeFileSync(
      join(work, "check.cjs"),
      `const { Worker } = require("node:worker_threads");
const { execFileSync } = require("node:child_process");
const child = execFileSync(process.execPath, ["-p", "process.memoryUsage().rss > 0"]).toString().trim();
new Worker("require('node:worker_threads').parentPort.postMessage(6 * 7)", { eval: true }).on("message", (n) =>
  console.log(child, n, process.memoryUsage().rss > 0, require("node:os").availableParallelism() > 0),
);
`,
    );
    const r = await sh(`${process.execPath} check.cjs`);
    expect(r).toMatchObject({ out: "true 42 true true", err: "", code: 0 });
  });

  it("python3 runs, reads its own resource use and starts child processes", async () => {
    const r = await sh(
      `python3 -c 'import resource, subprocess; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0, subprocess.run(["python3", "-c", "print(open(\\"/proc/self/status\\").readline().split()[1])"], capture_output=True, text=True).stdout.strip())'`,
    );
    expect(r).toMatchObject({ out: "True python3", code: 0 });
  });

  it("git initializes a repository, commits and shows its log", async () => {
    const r = await sh(
      "git init -q repo && cd repo && git config user.email t@example.com && git config user.name T && echo hi > a && git add a && git commit -qm first && git log --format=%s",
    );
    expect(r).toMatchObject({ out: "first", code: 0 });
  });

  it("resolves localhost", async () => {
    const r = await sh(
      `getent hosts localhost | head -1 | cut -d' ' -f1; ${JSON.stringify(process.execPath)} -e 'require("node:dns").lookup("localhost", (e, a) => console.log(e ? e.code : "resolved"))'`,
    );
    expect(r.out.split("\n")).toEqual([expect.stringMatching(/^(127\.0\.0\.1|::1)$/), "resolved"]);
  });

  it("npm installs a package from the registry, over the network", async () => {
    const r = await sh(
      "npm init -y >/dev/null && npm install --no-audit --no-fund is-number@7.0.0 && node -p 'require(\"is-number\")(5)'",
    );
    expect(r.out).toMatch(/added 1 package/);
    expect(r.out.split("\n").at(-1)).toBe("true");
    expect(r.code).toBe(0);
  });
});
