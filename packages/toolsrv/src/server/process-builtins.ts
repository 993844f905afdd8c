import { abortable } from "../exec/abortable.js";
import { type BuiltinAnswer, MAX_OUTPUT_WAIT_S } from "./builtins.js";
import type { ProcEntry, ProcTable } from "./proc-table.js";

/** The most output one process_output answers with: well under the model-facing cap of a tool result. */
export const OUTPUT_PAGE_BYTES = 16 * 1024;

const failure = (output: string): BuiltinAnswer => ({ output, isError: true });
const bytes = (n: number) => n.toLocaleString("en");

/**
 * The process `args.id` names if it is the caller's own. Another agent's process is answered exactly as
 * one that does not exist, so an agent learns nothing of the others'.
 */
function ownProcess(
  procs: ProcTable,
  uname: string,
  tool: string,
  args: Record<string, unknown>,
): ProcEntry | BuiltinAnswer {
  const id = typeof args.id === "string" && args.id.trim() !== "" ? Number(args.id) : args.id;
  if (typeof id !== "number" || !Number.isInteger(id) || id < 1)
    return failure(`${tool} needs id: the process id a call started in the background answered with`);
  const proc = procs.get(id);
  if (!proc || proc.uname !== uname)
    return failure(
      `no process ${id} of yours: it never was, or it ended long enough ago that toolsrv forgot it`,
    );
  return proc;
}

const isProc = (found: ProcEntry | BuiltinAnswer): found is ProcEntry => "run" in found;

const head = (p: ProcEntry) => `process ${p.id} (${p.run.tool})`;

/**
 * process_output: the process's status, then its output from `offset` (default: where the caller's last
 * read of it stopped), at most a page; with `wait`, first waits up to that many seconds for output past the
 * offset or for the end.
 */
export async function processOutput(
  procs: ProcTable,
  uname: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<BuiltinAnswer> {
  const found = ownProcess(procs, uname, "process_output", args);
  if (!isProc(found)) return found;
  const p = found;
  const offset = args.offset ?? p.cursor;
  if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0)
    return failure("process_output: offset is a byte of the output, a whole number from 0");
  const wait = args.wait ?? 0;
  if (typeof wait !== "number" || !Number.isFinite(wait) || wait < 0)
    return failure("process_output: wait is a number of seconds, from 0");
  const { stream } = p.run;
  if (offset > stream.end)
    return failure(
      `process_output: offset ${offset} is past the end of ${head(p)}'s output (${bytes(stream.end)} bytes so far)`,
    );
  if (wait > 0 && stream.end <= offset && !stream.closed) {
    const waited = AbortSignal.any([signal, AbortSignal.timeout(Math.min(wait, MAX_OUTPUT_WAIT_S) * 1000)]);
    await stream.waitPast(offset, waited).catch(() => {
      if (signal.aborted) throw signal.reason;
    });
  }
  // The stream closes just before the run's outcome is known: take the outcome too, so the status is final.
  if (stream.closed) await p.run.done;
  const from = Math.max(offset, stream.start);
  const page = wholeCharacters(stream.read(from, OUTPUT_PAGE_BYTES), from + OUTPUT_PAGE_BYTES < stream.end);
  const to = from + page.length;
  p.cursor = to;
  const lines = [`${head(p)}: ${p.status.get()}`];
  if (from > offset)
    lines.push(`[bytes ${bytes(offset)}–${bytes(from)} are no longer kept: from ${bytes(from)} on]`);
  const text = page.toString("utf8");
  lines.push(text === "" ? "(no new output)" : text.replace(/\n$/, ""));
  const range = `bytes ${bytes(from)}–${bytes(to)} of ${bytes(stream.end)}`;
  if (to < stream.end) lines.push(`[${range}: process_output with offset ${to} reads on]`);
  else if (!stream.closed)
    lines.push(
      `[${range} so far: process_output again for more (wait: seconds to wait for it), process_kill to end it]`,
    );
  else lines.push(`[${range}: the whole of its output]`);
  return { output: `${lines.join("\n")}\n`, isError: false };
}

/** process_kill: ends the process and all it started, and says how it ended. */
export async function processKill(
  procs: ProcTable,
  uname: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<BuiltinAnswer> {
  const found = ownProcess(procs, uname, "process_kill", args);
  if (!isProc(found)) return found;
  const p = found;
  if (p.outcome) return { output: `${head(p)} had already ended: ${p.status.get()}\n`, isError: false };
  p.run.kill();
  await abortable(p.run.done, signal);
  return {
    output: `${head(p)} ended: ${p.status.get()}. Its output can still be read with process_output.\n`,
    isError: false,
  };
}

/** `page` without a character cut in two at its end, when more follows it. */
function wholeCharacters(page: Buffer, more: boolean): Buffer {
  if (!more) return page;
  // Back over continuation bytes to the last lead byte: drop it if its sequence does not fit.
  let i = page.length - 1;
  while (i > 0 && i > page.length - 4 && (page[i]! & 0xc0) === 0x80) i--;
  const lead = page[i]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + length > page.length ? page.subarray(0, i) : page;
}
