import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy } from "@ollie/sandbox";
import { parentOf, processGone } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { CatalogEntry } from "../catalog/tool-catalog.js";
import { checkMeta } from "../metadata/tool-meta.js";
import { startTool } from "./run-tool.js";

/** How long a test waits for something to happen before it fails: generous, since machines are busy. */
const WAIT = { timeout: 10_000, interval: 10 };

const root = mkdtempSync(join(tmpdir(), "toolsrv-run-"));
const toolsDir = join(root, "tools");
const work = join(root, "work");
mkdirSync(toolsDir);
mkdirSync(work);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { PATH: "/usr/bin:/bin", HOME: work, TMPDIR: work };
const policy = await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } });

function entry(name: string, script: string, timeout?: number): CatalogEntry {
  const file = join(toolsDir, name);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  const checked = checkMeta({ name, description: name, ...(timeout !== undefined && { timeout }) });
  if (!("meta" in checked)) throw new Error(checked.problem);
  return { meta: checked.meta, file };
}

const run = async (e: CatalogEntry, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
  (await startTool(e, { args, cwd: work, env }, { policy, maxOutputBytes: 4096, ...(signal && { signal }) }))
    .done;

describe("running a tool", () => {
  it("gives it its arguments on stdin and as OLLIE_ARG_*, in the request's directory and environment only", async () => {
    process.env.TOOLSRV_SECRET = "must not leak";
    const e = entry(
      "echo_args",
      'cat; printf "|%s|%s|%s|%s|%s" "$OLLIE_ARG_PATH" "$OLLIE_ARG_COUNT" "$PWD" "$OLLIE_TOOL" "$TOOLSRV_SECRET"',
    );
    const outcome = await run(e, { path: "a.txt", count: 3, nested: { x: 1 } });
    expect(outcome).toMatchObject({ exitCode: 0, truncated: false, timedOut: false, cancelled: false });
    expect(outcome.output).toBe(`{"path":"a.txt","count":3,"nested":{"x":1}}\n|a.txt|3|${work}|echo_args|`);
  });

  it("reports the exit status and keeps stderr", async () => {
    const outcome = await run(entry("fails", "echo partial; echo 'no such file' >&2; exit 3"));
    expect(outcome).toMatchObject({ exitCode: 3, output: "partial\n", stderr: "no such file\n" });
  });

  it("caps the output it keeps, saying how much there was", async () => {
    const outcome = await run(entry("chatty", "head -c 100000 /dev/zero | tr '\\000' x; echo; echo THE END"));
    expect(outcome.bytes).toBe(100_009);
    expect(outcome.truncated).toBe(true);
    expect(outcome.output).toMatch(
      /^x{3072}\n\[95,913 of 100,009 bytes of output left out here\]\nx+\nTHE END\n$/,
    );
  });

  it("ends the tool and all it started at the tool's timeout", async () => {
    const pids = join(work, "timeout.pids");
    // A run that waited for its `sleep 100` would outlast the test's own timeout.
    const outcome = await run(
      entry("slow", `setsid sleep 100 & echo $! > ${pids}; echo $$ >> ${pids}; sleep 100`, 0.3),
    );
    expect(outcome).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM" });
    for (const pid of readFileSync(pids, "utf8").trim().split("\n").map(Number))
      expect(processGone(pid)).toBe(true);
  });

  it("ends when the tool exits, killing what it left in the background instead of waiting for it", async () => {
    const pids = join(work, "background.pids");
    const outcome = await run(entry("leaves_one", `setsid sleep 100 & echo $! > ${pids}; echo started`, 60));
    expect(outcome).toMatchObject({ exitCode: 0, output: "started\n", timedOut: false });
    expect(processGone(Number(readFileSync(pids, "utf8").trim()))).toBe(true);
  });

  // Retried: on a loaded machine the tool has twice been seen to end before the abort (cause not yet found;
  // every other tree test holds), which says nothing of cancelling.
  it("is cancelled by its signal, grandchildren included", { retry: 2 }, async () => {
    const pids = join(work, "cancel.pids");
    const ac = new AbortController();
    const running = run(
      entry("forks", `( (setsid sleep 100 & echo $! > ${pids}) & ) ; sleep 100`),
      {},
      ac.signal,
    );
    await vi.waitFor(() => expect(existsSync(pids)).toBe(true), WAIT);
    ac.abort();
    expect(await running).toMatchObject({ cancelled: true });
    const pid = Number(readFileSync(pids, "utf8").trim());
    expect(processGone(pid)).toBe(true);
  });

  it("ends with a failure that says so when the launcher service dies under it; the next run starts a new one", async () => {
    const pids = join(work, "service.pids");
    const running = await startTool(
      entry("blocks", `echo partial; setsid sleep 100 & echo $! > ${pids}; sleep 100`),
      { args: {}, cwd: work, env },
      { policy },
    );
    await vi.waitFor(() => expect(existsSync(pids)).toBe(true), WAIT);
    const service = parentOf(running.pid!)!;
    process.kill(service, "SIGKILL");
    const outcome = await running.done;
    const failure =
      "blocks did not finish: the sandbox launcher service stopped during this call (killed by SIGKILL), " +
      "ending blocks and every process it started; the next call starts a new service";
    expect(outcome).toMatchObject({ exitCode: null, signal: null, failure });
    expect(outcome.output).toMatch(new RegExp(`\\[${failure.replace(/[()]/g, "\\$&")}\\]\n$`));
    const left = Number(readFileSync(pids, "utf8").trim());
    await vi.waitFor(() => expect(processGone(left)).toBe(true), WAIT);
    const next = await startTool(entry("after", "echo again"), { args: {}, cwd: work, env }, { policy });
    expect(parentOf(next.pid!)).not.toBe(service);
    expect(await next.done).toMatchObject({ exitCode: 0, output: "again\n" });
  });

  it("runs under the sandbox: writing outside the policy is denied by Landlock", async () => {
    const outside = mkdtempSync(join(tmpdir(), "toolsrv-outside-"));
    try {
      const outcome = await run(
        entry("escape", `echo inside > ./inside.txt && echo pwned > ${outside}/pwned.txt`),
      );
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.stderr).toMatch(/Permission denied/);
      expect(existsSync(join(work, "inside.txt"))).toBe(true);
      expect(existsSync(join(outside, "pwned.txt"))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
