import type { EventStream, OllieClient } from "@ollie/client";
import { submitPrompt } from "./agent-prompt.js";
import { BatchSender } from "./batch-sender.js";
import { eventLine } from "./event-line.js";
import { FEED_DEFAULTS, type ObserveInvocation } from "./feed-args.js";
import { plural } from "./feed-command.js";
import { type Batch, batchLines } from "./line-batch.js";
import { watchSessionEnd } from "./session-end.js";
import { findSession } from "./session-lookup.js";
import { catchStopSignals, signalStatus } from "./stop-signals.js";

/** A batch of events as the observer's prompt: which session, then a line per event. */
export function observePrompt(session: string, batch: Batch): string {
  return [`[observing ${session}] ${plural(batch.total, "event")}:`, ...batchLines(batch)].join("\n");
}

/**
 * `ollie observe SESSION [PROFILE]`: starts an observer session in SESSION's directory, prints its id, and
 * prompts it with SESSION's events in batches (see BatchSender), each a compact line; the observer writes
 * what it finds to SESSION's agent itself (as a peer's prompt). Runs until Ctrl-C, SIGTERM or SIGHUP (130, 143, 129), the
 * observed session's end (0) or the observer's (1); then kills the observer session unless `--keep`.
 */
export async function observeCommand(client: OllieClient, invocation: ObserveInvocation): Promise<number> {
  const observed = await findSession(client, invocation.session);
  const say = (line: string) => process.stderr.write(`ollie: ${line}\n`);
  const leaving = new AbortController();
  // Subscribed before the observer exists, so that nothing between the two is missed.
  const events = await client
    .session(observed.id)
    .events({ topics: invocation.topics, signal: leaving.signal });
  const spec = {
    agent: invocation.profile,
    name: `observer-of-${observed.name || observed.id}`,
    ...(observed.cwd && { cwd: observed.cwd }),
  };
  const observer = (await client.newSession(spec)).id;
  process.stdout.write(`${observer}\n`);
  let status = 1;
  let observerGone = false;
  try {
    const { ended: observerEnded } = await watchSessionEnd(client, observer, leaving.signal);
    const first = await untilAnEnd(client, invocation, observed.id, observer, events, observerEnded, leaving);
    switch (first.kind) {
      case "observed":
        say(`${first.why}; ${plural(first.batches, "batch", "batches")} sent to observer ${observer}`);
        status = 0;
        break;
      case "signal":
        say(`stopped by ${first.signal}`);
        status = signalStatus(first.signal);
        break;
      case "observer":
        say(`the observer ended: ${first.why}`);
        observerGone = true;
        break;
      default:
        say(`cannot prompt the observer: ${first.why}`);
    }
  } finally {
    leaving.abort();
    void events.close().catch(() => {});
    if (invocation.keep) say(`kept observer session ${observer}`);
    else if (!observerGone)
      await client
        .session(observer)
        .kill()
        .then(
          () => say(`killed observer session ${observer}`),
          (error: unknown) => say(`could not kill observer session ${observer}: ${(error as Error).message}`),
        );
  }
  return status;
}

type ObserveEnd =
  | { kind: "observed"; why: string; batches: number }
  | { kind: "signal"; signal: NodeJS.Signals }
  | { kind: "observer" | "failed"; why: string };

/** Prompts the observer with the observed session's events until something ends it, and says what. */
async function untilAnEnd(
  client: OllieClient,
  invocation: ObserveInvocation,
  observed: string,
  observer: string,
  events: EventStream,
  observerEnded: Promise<string>,
  leaving: AbortController,
): Promise<ObserveEnd> {
  const agent = client.session(observer).agent();
  const sender = new BatchSender({
    windowMs: invocation.windowMs,
    maxLines: FEED_DEFAULTS.maxLines,
    maxBytes: FEED_DEFAULTS.maxBytes,
    deliver: (batch) => submitPrompt(agent, observePrompt(observed, batch)),
    sent: (n, batch, ticket) =>
      process.stderr.write(`ollie: batch ${n}: ${plural(batch.total, "event")} → prompt ${ticket}\n`),
  });
  const { signalled, release } = catchStopSignals();
  try {
    const first = await Promise.race([
      follow(events, agent.uname, (line) => sender.push(line), leaving.signal).then((why) => ({
        kind: "observed" as const,
        why,
        batches: sender.batches,
      })),
      signalled.then((signal) => ({ kind: "signal" as const, signal })),
      observerEnded.then((why) => ({ kind: "observer" as const, why })),
      sender.failed.catch((error: Error) => ({ kind: "failed" as const, why: error.message })),
    ]);
    // A kept observer still gets the last events; one about to be killed need not.
    if (first.kind === "observed" && invocation.keep) await sender.finish().catch(() => {});
    return first;
  } finally {
    sender.discard();
    release();
  }
}

/**
 * Reads the observed session's events until its end, handing each (but the end) as a line to `onLine`;
 * resolves saying why it stopped: the session was killed, or olliesrv went.
 */
async function follow(
  events: EventStream,
  observer: string,
  onLine: (line: string) => void,
  signal: AbortSignal,
): Promise<string> {
  let killed = false;
  try {
    for await (const event of events) {
      if (event.kind === "session" && event.type === "kill") killed = true;
      else onLine(eventLine(event, observer));
    }
  } catch (error) {
    if (signal.aborted) return new Promise(() => {});
    return `cannot follow the observed session: ${(error as Error).message}`;
  }
  return killed ? "the observed session was killed" : "the observed session's events ended";
}
