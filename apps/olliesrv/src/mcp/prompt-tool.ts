import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { OllieClient } from "@ollie/client";
import { askTurn, turnFailed } from "../frontend/ask-turn.js";
import { followActivity } from "../frontend/follow-activity.js";
import { log } from "./log.js";
import type { OlliesrvLink } from "./olliesrv-link.js";
import { onSession } from "./tool-results.js";
import { TurnProgress } from "./turn-progress.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * ollie_prompt: `ollie ask SESSION TEXT`, answered with the turn's last reply once the turn has ended. A turn
 * that did not end `done` (or `handled`) — the ones ask exits non-zero for — is an error result saying how
 * it ended. While it runs, a request that carries a progress token is told what the agent does; a cancelled
 * request stops the turn, as Ctrl-C stops ask's.
 */
export function prompt(
  link: OlliesrvLink,
  session: string,
  text: string,
  extra: Extra,
): Promise<CallToolResult> {
  return onSession(session, () => link.use((client) => ask(client, session, text, extra)));
}

async function ask(
  client: OllieClient,
  session: string,
  text: string,
  extra: Extra,
): Promise<CallToolResult> {
  const agent = client.session(session).agent();
  const following = new AbortController();
  let submitted = false;
  let stopping: Promise<void> | undefined;
  // Nobody waits for the answer any more: the turn is stopped, then no longer followed. A stop that finds
  // the turn ended meanwhile is no failure.
  const stop = () => {
    stopping ??= agent
      .stop()
      .then(() => {})
      .catch((error: unknown) =>
        log(`could not stop the turn of session ${session}: ${(error as Error).message}`),
      )
      .finally(() => following.abort());
  };
  // Before the prompt is taken there is no turn to stop yet: it is stopped as soon as it is.
  const cancelled = () => {
    if (submitted) stop();
  };
  extra.signal.addEventListener("abort", cancelled, { once: true });
  const token = extra._meta?.progressToken;
  const progress =
    token === undefined
      ? undefined
      : new TurnProgress(text, (n, message) =>
          extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: n, message },
          }),
        );
  let activity: { stop(): Promise<void> } | undefined;
  try {
    // Followed before the prompt is written, so the turn's first state is not missed.
    if (progress) activity = await followActivity(agent, (a) => progress.update(a));
    const end = await askTurn(agent, text, (chunk) => progress?.chunk(chunk), {
      signal: following.signal,
      submitted: () => {
        submitted = true;
        if (extra.signal.aborted) stop();
      },
    });
    const outcome = end.outcome.text;
    const reply = end.reply.trimEnd();
    const failed = turnFailed(end);
    // A failure's reason comes first, where a client shows it; a success is its reply.
    const texts = failed
      ? [`session ${session}: the turn ended: ${outcome}`, reply]
      : [reply, `the turn ended: ${outcome}`];
    return {
      content: texts.filter(Boolean).map((t) => ({ type: "text" as const, text: t })),
      structuredContent: { session, outcome, reply },
      ...(failed && { isError: true }),
    };
  } finally {
    extra.signal.removeEventListener("abort", cancelled);
    // The call ends once its turn is stopped: so does ollie mcp, which closes the connection after it.
    await stopping;
    await activity?.stop();
  }
}
