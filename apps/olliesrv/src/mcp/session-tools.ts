import { isAbsolute } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RefusedError } from "@ollie/client";
import { SESSIONS_HEADER, sessionLines } from "../frontend/session-lines.js";
import { sessionSpec } from "../frontend/session-spec.js";
import { statusLines } from "../frontend/status-lines.js";
import type { OlliesrvLink } from "./olliesrv-link.js";
import { answer, failure, guarded, onSession } from "./tool-results.js";

/** The header rows of ollie_status's tables: their rows are `ollie ls`'s and `ollie status`'s lines. */
const STATUS_HEADER = "id\tstate\tprofile\tmodel\ttokens\tcost\n";

/** The status of a session (every session without one) as `ollie status` prints it: a line each. */

export interface NewSessionArgs {
  cwd?: string | undefined;
  agent?: string | undefined;
  name?: string | undefined;
  backend?: string | undefined;
  model?: string | undefined;
}

/** ollie_new_session: `ollie new`, in ollie mcp's directory unless `cwd` names another. */
export function newSession(link: OlliesrvLink, args: NewSessionArgs): Promise<CallToolResult> {
  // Relative to what? ollie mcp's directory is the MCP client's choice, which the model does not see.
  if (args.cwd !== undefined && !isAbsolute(args.cwd))
    return Promise.resolve(failure(`cwd must be an absolute directory, not '${args.cwd}'`));
  return guarded(() =>
    link.use(async (client) => {
      const spec = sessionSpec(args);
      const { id: session } = await client.newSession(spec).catch((error: unknown) => {
        const why = error instanceof RefusedError ? error.reason : (error as Error).message;
        throw new Error(`could not create a session in ${spec.cwd}: ${why}`);
      });
      return answer(session, { session });
    }),
  );
}

/** ollie_status: `ollie status SESSION`; without a session, `ollie ls` and `ollie status` for them all. */
export function status(link: OlliesrvLink, session: string | undefined): Promise<CallToolResult> {
  if (session !== undefined)
    return onSession(session, () =>
      link.use(async (client) => answer(STATUS_HEADER + (await statusLines(client, session)))),
    );
  return guarded(() =>
    link.use(async (client) => {
      const sessions = await client.sessions();
      if (sessions.length === 0) return answer("no sessions (ollie_new_session makes one)");
      return answer(
        `${SESSIONS_HEADER}${sessionLines(sessions)}\n${STATUS_HEADER}${await statusLines(client, undefined)}`,
      );
    }),
  );
}

/** ollie_read_chat: `ollie chat SESSION`, or its last `tail` lines. */
export function readChat(
  link: OlliesrvLink,
  session: string,
  tail: number | undefined,
): Promise<CallToolResult> {
  return onSession(session, () =>
    link.use(async (client) => {
      const chat = await client.session(session).agent().chatText();
      if (chat === "") return answer(`nothing has been said in session ${session} yet`);
      // The blank lines that end a turn are no lines to count.
      const lines = chat.replace(/\n+$/, "").split("\n");
      if (tail === undefined || lines.length <= tail) return answer(chat);
      return answer(`[${lines.length - tail} earlier lines left out]\n${lines.slice(-tail).join("\n")}\n`);
    }),
  );
}

/** ollie_stop: `ollie stop SESSION`, whose refusal when no turn runs is the tool's error too. */
export function stop(link: OlliesrvLink, session: string): Promise<CallToolResult> {
  return onSession(session, () =>
    link.use(async (client) => {
      await client.session(session).agent().ctl("stop");
      return answer(`stopped the turn session ${session} was running`);
    }),
  );
}
