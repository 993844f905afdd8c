import type { OllieClient } from "@ollie/client";
import { submitPrompt } from "./agent-prompt.js";
import { BatchSender } from "./batch-sender.js";
import type { FeedInvocation } from "./feed-args.js";
import { startSource } from "./feed-source.js";
import { type Batch, batchLines } from "./line-batch.js";
import { watchSessionEnd } from "./session-end.js";
import { findSession } from "./session-lookup.js";
import { catchStopSignals, signalStatus } from "./stop-signals.js";

/** A batch as the prompt the agent gets: a header naming the source, the lines, and on the last one its end. */
export function feedPrompt(label: string, batch: Batch, last?: string): string {
  const header = `[feed from ${label}: ${plural(batch.total, "line")}]`;
  const end = last === undefined ? [] : [`[${last}; that was the feed's last batch]`];
  return [header, ...batchLines(batch), ...end].join("\n");
}

/** What a batch held, for the line printed when it is sent. */
export function batchSummary(batch: Batch): string {
  return `${plural(batch.total, "line")}${batch.leftOut > 0 ? ` (${batch.leftOut} left out)` : ""}`;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/**
 * `ollie feed SESSION [options] [-- CMD ARGS...]`: runs CMD (or follows `--file`, or reads standard input)
 * and writes what it prints, in batches, as prompts to the session's main agent (see BatchSender), printing
 * a line to standard error for each. Ends when the source does (after a last batch), with CMD's exit status;
 * on Ctrl-C, SIGTERM or SIGHUP, stopping CMD's process group, with 130, 143 or 129; when the session ends,
 * with 1.
 */
export async function feedCommand(client: OllieClient, invocation: FeedInvocation): Promise<number> {
  const session = await findSession(client, invocation.session);
  const agent = client.session(session.id).agent();
  const say = (line: string) => process.stderr.write(`ollie: ${line}\n`);
  let label = "";
  let ending: string | undefined;
  const sender = new BatchSender({
    ...invocation,
    deliver: (batch, last) => submitPrompt(agent, feedPrompt(label, batch, last ? ending : undefined)),
    sent: (n, batch, ticket) => say(`batch ${n}: ${batchSummary(batch)} → prompt ${ticket}`),
  });
  const leaving = new AbortController();
  // Subscribed before the source starts: a kill from then on ends the feed.
  const { ended: sessionEnded } = await watchSessionEnd(client, session.id, leaving.signal);
  const source = startSource(invocation.source, (line) => sender.push(line), invocation.maxBytes);
  label = source.label;
  const { signalled, release } = catchStopSignals();
  try {
    const first = await Promise.race([
      source.done.then((end) => ({ kind: "source" as const, ...end })),
      signalled.then((signal) => ({ kind: "signal" as const, signal })),
      sessionEnded.then((why) => ({ kind: "session" as const, why })),
      sender.failed.catch((error: Error) => ({ kind: "failed" as const, why: error.message })),
    ]);
    switch (first.kind) {
      case "source": {
        ending = first.how;
        try {
          const batches = await sender.finish();
          say(`${first.how}; ${plural(batches, "batch", "batches")} sent to session ${session.id}`);
        } catch (error) {
          say(`${first.how}; the last batch could not be sent: ${(error as Error).message}`);
          return 1;
        }
        return first.status;
      }
      case "signal": {
        const unsent = sender.discard();
        await source.stop();
        say(`stopped by ${first.signal}${unsent > 0 ? `; ${plural(unsent, "line")} not sent` : ""}`);
        return signalStatus(first.signal);
      }
      default: {
        const unsent = sender.discard();
        await source.stop();
        say(`${first.why}: the feed ends${unsent > 0 ? `; ${plural(unsent, "line")} not sent` : ""}`);
        return 1;
      }
    }
  } finally {
    leaving.abort();
    release();
  }
}
