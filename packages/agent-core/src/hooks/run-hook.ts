import { loadSandbox, SandboxNotInstalledError } from "@ollie/backends";
import { traceCarrierOf, traceEnv } from "@ollie/telemetry";
import { hookEnv } from "./hook-env.js";

/**
 * How one hook command ended:
 * - `ok`: exit 0;
 * - `block`: exit 2, a deliberate refusal (what it means depends on the event);
 * - `warn`: any other exit status — execution goes on;
 * - `failed`: the hook did not do its job — it could not start (exit 126/127 included), was killed by a
 *   signal, or timed out. Kept apart from `block` so a broken hook is never mistaken for a deliberate one.
 */
export interface HookRun {
  command: string;
  outcome: "ok" | "block" | "warn" | "failed";
  exitCode?: number;
  stdout: string;
  stderr: string;
  /** Why, for `warn` and `failed`. */
  problem?: string;
  durationMs: number;
}

export interface HookRunOptions {
  cwd: string;
  /** The environment besides the OLLIE_* variables (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Kill the hook and everything it started after this long (default 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const OUTPUT_LIMIT = 1024 * 1024;

/** `@ollie/sandbox/process`, an optional peer, loaded when the first hook runs. */
async function shellRunner(payload: Record<string, unknown>) {
  const event = typeof payload.event === "string" ? `the ${payload.event} hook` : "a hook";
  return (await loadSandbox(event, () => import("@ollie/sandbox/process"))).runShellInGroup;
}

/**
 * Runs one hook command through the shell with `payload` as JSON on stdin and OLLIE_* variables derived
 * from it. Everything it starts, however detached, is killed when it exits, at the timeout, or when
 * `signal` aborts (see runShellInGroup), so nothing is left behind to hold its pipes open. That needs
 * `@ollie/sandbox`: without it the hook could not start (`failed`), and its problem says what to install.
 */
export async function runHook(
  command: string,
  payload: Record<string, unknown>,
  o: HookRunOptions,
): Promise<HookRun> {
  const started = performance.now();
  const timeoutMs = o.timeoutMs ?? 60_000;
  let runShellInGroup: Awaited<ReturnType<typeof shellRunner>>;
  try {
    runShellInGroup = await shellRunner(payload);
  } catch (err) {
    if (!(err instanceof SandboxNotInstalledError)) throw err;
    const problem = `could not start: ${err.message}`;
    return { command, outcome: "failed", stdout: "", stderr: "", problem, durationMs: 0 };
  }
  const { result, stopped: why } = await runShellInGroup(command, {
    cwd: o.cwd,
    // The hook's span, as its parent: a hook that traces what it does joins the agent's trace.
    env: { ...(o.env ?? process.env), ...hookEnv(payload), ...traceEnv(traceCarrierOf()) },
    input: `${JSON.stringify(payload)}\n`,
    maxBuffer: OUTPUT_LIMIT,
    timeoutMs,
    signal: o.signal,
  });
  const stopped =
    why === "timeout" ? `timed out after ${timeoutMs / 1000} s` : why === "abort" ? "stopped" : undefined;
  const base = {
    command,
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
    durationMs: performance.now() - started,
    ...(result.exitCode !== undefined && { exitCode: result.exitCode }),
  };
  if (stopped) return { ...base, outcome: "failed", problem: stopped };
  if (result.exitCode === undefined) {
    const why = result.signal ? `was killed by ${result.signal}` : `could not start: ${result.shortMessage}`;
    return { ...base, outcome: "failed", problem: why };
  }
  if (result.exitCode === 0) return { ...base, outcome: "ok" };
  if (result.exitCode === 2) return { ...base, outcome: "block" };
  if (result.exitCode === 126 || result.exitCode === 127) {
    const said = base.stderr.trim().split("\n").at(-1) ?? "";
    return {
      ...base,
      outcome: "failed",
      problem: `could not start (exit ${result.exitCode})${said ? `: ${said}` : ""}`,
    };
  }
  return { ...base, outcome: "warn", problem: `exited with status ${result.exitCode}` };
}

/**
 * Runs a hook's commands in order, stopping at the first that blocks (exit 2) — unless `canBlock` is false,
 * for an event with nothing left to block: there exit 2 is a status like any other (`warn`) and the list
 * goes on.
 */
export async function runHookList(
  commands: readonly string[],
  payload: Record<string, unknown>,
  o: HookRunOptions,
  canBlock = true,
): Promise<HookRun[]> {
  const runs: HookRun[] = [];
  for (const command of commands) {
    let run = await runHook(command, payload, o);
    if (run.outcome === "block" && !canBlock) {
      run = { ...run, outcome: "warn", problem: "exited with status 2 (this event cannot be blocked)" };
    }
    runs.push(run);
    if (run.outcome === "block") break;
  }
  return runs;
}
