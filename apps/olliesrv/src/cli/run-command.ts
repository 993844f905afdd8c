import { text as readAll } from "node:stream/consumers";
import {
  type Agent,
  type OllieClient,
  RUN_EVENTS_VERSION,
  type RunEvent,
  type RunStatus,
  type Session,
  type UsageTotals,
} from "@ollie/client";
import { type HeadlessEnd, HeadlessTurn } from "../frontend/headless-turn.js";
import { askExitStatus } from "./ask-command.js";
import { removeSession } from "./remove-session.js";
import type { RunInvocation } from "./run-args.js";
import { catchTurnInterrupts } from "./turn-interrupts.js";

/**
 * `ollie run`'s exit status for how the run ended: `ollie ask`'s for the turn's own status (0 `done` or
 * `handled`, 1 `error`, 3 `maxsteps`, 4 `blocked`, 130 `interrupted`), 5 when its cost passed `--max-cost`, 6
 * when an agent asked for an approval under `--approve fail`. 2 stays the usage mistake's, 1 ollie's own
 * failure's too.
 */
export function runExitStatus(status: RunStatus): number {
  switch (status) {
    case "maxcost":
      return 5;
    case "approval":
      return 6;
    default:
      return askExitStatus(status);
  }
}

const say = (line: string) => process.stderr.write(`ollie: ${line}\n`);

/**
 * `ollie run [options] PROMPT`: one turn with nobody to ask — in a new session in this directory (removed at
 * the end unless `--keep`), or the one `--session` names — printed as `ollie ask` prints it, or with
 * `--json` as one JSON object a line (RunEvent). Approvals are denied at once; `--max-turns` limits the
 * turn's rounds of tool calls and `--max-cost` what it may cost. Resolves with the exit status (see
 * runExitStatus); 2 when standard input held no prompt.
 */
export async function runCommand(client: OllieClient, run: RunInvocation): Promise<number> {
  const text = run.prompt ?? (await readAll(process.stdin)).trim();
  if (text === "") {
    say("run: standard input held no prompt");
    return 2;
  }
  const session =
    run.session === undefined
      ? await client.newSession(run.spec)
      : client.session((await client.findSession(run.session)).id);
  const kept = run.session !== undefined || run.keep;
  try {
    return await runIn(client, session, text, run, kept);
  } finally {
    if (!kept)
      await removeSession(client, session.id).catch((error: unknown) => {
        say(`could not remove session ${session.id}: ${(error as Error).message}`);
      });
    else if (run.keep) say(`kept session ${session.id}`);
  }
}

async function runIn(
  client: OllieClient,
  session: Session,
  text: string,
  run: RunInvocation,
  kept: boolean,
): Promise<number> {
  const agent = session.agent();
  // Read once: the start line shows it, and the step limit the run changes is put back from it.
  const cfg = await agent.cfg();
  const putBack = await limitSteps(agent, cfg.maxSteps, run.maxTurns, kept);
  const putBudgetBack = await limitSpending(session, run.maxCostUsd, kept).catch(async (error: unknown) => {
    await putBack();
    throw error;
  });
  try {
    const emit = run.json ? printLine : textLine;
    emit({
      type: "start",
      version: RUN_EVENTS_VERSION,
      session: session.id,
      agent: cfg.uname,
      profile: cfg.profile,
      ...(cfg.backend && { backend: cfg.backend }),
      ...(cfg.model && { model: cfg.model }),
      cwd: cfg.cwd,
      approvals: run.approve,
      ...(run.maxTurns !== undefined && { maxTurns: run.maxTurns }),
      ...(run.maxCostUsd !== undefined && { maxCostUsd: run.maxCostUsd }),
      kept,
    });
    const interrupts = catchTurnInterrupts({
      signals: ["SIGINT", "SIGTERM", "SIGHUP"],
      stop: () => turn.stop(),
      say,
      stopping: "stopping the turn (a second signal leaves at once)",
      leaving: kept ? `left the turn running in session ${session.id}` : "leaving at once",
    });
    const turn = new HeadlessTurn(client, session, {
      approve: run.approve,
      maxCostUsd: run.maxCostUsd,
      emit,
      show: run.json ? undefined : (chunk) => process.stdout.write(chunk),
      say: run.json ? undefined : say,
      signal: interrupts.leaving,
      submitted: interrupts.submitted,
    });
    let end: HeadlessEnd;
    try {
      end = await turn.run(text);
    } catch (error) {
      const left = interrupts.leaving.aborted;
      const message = left ? "left before the turn ended" : (error as Error).message;
      if (!left) emit({ type: "error", message });
      return finish(emit, { status: left ? "interrupted" : "error", error: message, session, kept });
    } finally {
      interrupts.release();
    }
    const usage = end.record?.usage;
    const error = end.reason ?? end.turn.outcome.error;
    return finish(emit, {
      status: end.status,
      steps: end.record?.steps ?? 0,
      ...(usage && { usage }),
      reply: end.turn.reply,
      ...(error !== undefined && { error }),
      session,
      kept,
    });
  } finally {
    await putBack().catch((error: unknown) => {
      say(`could not give session ${session.id} its step limit back: ${(error as Error).message}`);
    });
    await putBudgetBack().catch((error: unknown) => {
      say(`could not give session ${session.id} its budget back: ${(error as Error).message}`);
    });
  }
}

const NO_USAGE: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheCreationTokens: 0,
  requests: 0,
  costUsd: 0,
};

/** The outcome line, and the exit status it gives. */
function finish(
  emit: (event: RunEvent) => void,
  end: {
    status: RunStatus;
    steps?: number;
    usage?: UsageTotals;
    reply?: string;
    error?: string;
    session: Session;
    kept: boolean;
  },
): number {
  const exitStatus = runExitStatus(end.status);
  const usage = end.usage ?? NO_USAGE;
  emit({
    type: "outcome",
    status: end.status,
    exitStatus,
    steps: end.steps ?? 0,
    usage,
    costUsd: usage.costUsd,
    reply: end.reply ?? "",
    ...(end.error !== undefined && { error: end.error }),
    session: end.session.id,
    kept: end.kept,
  });
  return exitStatus;
}

/**
 * Gives the agent `steps` rounds of tool calls a turn for the run; what it returns puts back the limit it had
 * (`before`) when the session outlives the run (a removed one needs nothing put back).
 */
async function limitSteps(
  agent: Agent,
  before: number | undefined,
  steps: number | undefined,
  kept: boolean,
): Promise<() => Promise<void>> {
  if (steps === undefined) return async () => {};
  await agent.configure({ maxSteps: steps });
  return async () => {
    if (kept && before !== undefined) await agent.configure({ maxSteps: before });
  };
}

/**
 * `--max-cost`: the session's budget in dollars becomes what it has spent plus USD for the run, so that
 * olliesrv holds every request to it — those of the sessions its agent makes too — and refuses one whose
 * input alone would pass it. A kept session gets its own limit back after the run.
 */
async function limitSpending(
  session: Session,
  maxCostUsd: number | undefined,
  kept: boolean,
): Promise<() => Promise<void>> {
  if (maxCostUsd === undefined) return async () => {};
  const before = await session.budget();
  // Never more than the session's own limit allows: --max-cost tightens a budget, never lifts it.
  const limit = Math.min(before.usdSpent + maxCostUsd, before.usd ?? Number.POSITIVE_INFINITY);
  await session.ctl(`budget ${limit.toFixed(6)}`);
  return async () => {
    if (kept) await session.ctl(before.usd === undefined ? "budget usd off" : `budget ${before.usd}`);
  };
}

/** `--json`: each event as one JSON object on its line. */
function printLine(event: RunEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Without `--json` the chat is on stdout; ollie says on stderr what the chat does not. */
function textLine(event: RunEvent): void {
  switch (event.type) {
    case "start":
      say(
        `approvals are denied in a run (--approve ${event.approvals}${event.approvals === "fail" ? ": the first ends it" : ""})`,
      );
      return;
    case "approval":
      say(
        `denied bypass request ${event.request}: ${event.agent} asked to ${event.operation} (${event.command})`,
      );
      return;
    case "outcome":
      if (event.exitStatus !== 0)
        say(
          `the run ended: ${event.status}${event.error ? `: ${event.error}` : ""} (session ${event.session})`,
        );
      return;
    default:
      return;
  }
}
