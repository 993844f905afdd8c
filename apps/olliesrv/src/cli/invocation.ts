import { parseArgs } from "node:util";
import type { SessionSpec } from "@ollie/client";
import { sessionSpec } from "../frontend/session-spec.js";
import { REQUEST_ID } from "../request-id.js";
import type { BypassInvocation } from "./bypass-commands.js";
import { type FeedInvocation, type ObserveInvocation, parseFeed, parseObserve } from "./feed-args.js";
import { type InitInvocation, parseInit } from "./init-args.js";
import { type LoginInvocation, parseLogin } from "./login-args.js";
import { parseRun, type RunInvocation } from "./run-args.js";
import {
  type AskInvocation,
  type PruneInvocation,
  parseAsk,
  parsePrune,
  parseRm,
  parseSh,
  type RmInvocation,
  type ShInvocation,
} from "./session-args.js";
import { parseUndo, type UndoInvocation } from "./undo-command.js";
import { parseListen, type WebInvocation } from "./web-command.js";

/** What an `ollie` command line asks for, checked whole before any connection is made. */
export type Invocation =
  | { command: "new"; spec: SessionSpec }
  | AskInvocation
  | RunInvocation
  | ShInvocation
  | RmInvocation
  | PruneInvocation
  | { command: "ls" | "top" }
  | { command: "chat"; session: string; follow: boolean }
  | { command: "status"; session: string | undefined }
  | { command: "stop" | "kill"; session: string }
  | InitInvocation
  | BypassInvocation
  | FeedInvocation
  | ObserveInvocation
  | { command: "backends" }
  | { command: "mcp" }
  | AcpInvocation
  | UndoInvocation
  | WebInvocation
  | LoginInvocation;

/** The commands that work without olliesrv (and reach it only when it runs). */
export type LocalInvocation = Extract<
  Invocation,
  { command: "init" | "backends" | "login" | "mcp" | "acp" | "web" }
>;

/** `ollie acp [--agent PROFILE]`. */
export interface AcpInvocation {
  command: "acp";
  agent: string | undefined;
}

/** A mistake in how `ollie` was called: printed with the usage, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const NEW_OPTIONS = {
  agent: { type: "string" },
  cwd: { type: "string" },
  remote: { type: "string" },
  backend: { type: "string" },
  model: { type: "string" },
  name: { type: "string" },
} as const;

/** Reads a command and its arguments; throws UsageError (or parseArgs' own error) when they are wrong. */
export function parseInvocation(command: string | undefined, args: string[]): Invocation {
  const operands = (max: number) => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    if (positionals.length > max) throw new UsageError(`${command} takes at most ${max} operand(s)`);
    return positionals;
  };
  const needed = (session: string | undefined) => {
    if (!session) throw new UsageError(`${command} needs a session`);
    return session;
  };
  switch (command) {
    case undefined:
      throw new UsageError("no command given");
    case "new": {
      const { values } = parseArgs({ args, options: NEW_OPTIONS });
      return { command, spec: sessionSpec(values) };
    }
    case "ask":
      return parseAsk(args);
    case "run":
      return parseRun(args);
    case "sh":
      return parseSh(args);
    case "rm":
      return parseRm(args);
    case "prune":
      return parsePrune(args);
    case "undo":
      return parseUndo(args);
    case "status":
      return { command, session: operands(1)[0] };
    case "ls":
    case "top":
      operands(0);
      return { command };
    case "chat": {
      const { values, positionals } = parseArgs({
        args,
        options: { f: { type: "boolean" } },
        allowPositionals: true,
      });
      return { command, session: needed(positionals[0]), follow: values.f ?? false };
    }
    case "stop":
    case "kill":
      return { command, session: needed(operands(1)[0]) };
    case "feed":
      return parseFeed(args);
    case "observe":
      return parseObserve(args);
    case "init":
      return parseInit(args);
    case "login":
      return parseLogin(args);
    case "acp": {
      const { values } = parseArgs({ args, options: { agent: { type: "string" } } });
      return { command, agent: values.agent };
    }
    case "web": {
      const { values } = parseArgs({ args, options: { listen: { type: "string" } } });
      return { command, ...parseListen(values.listen) };
    }
    case "backends":
    case "bypass":
    case "mcp":
      operands(0);
      return { command };
    case "approve":
    case "deny": {
      const { positionals } = parseArgs({ args, allowPositionals: true });
      const [id, ...reason] = positionals;
      if (!id || !REQUEST_ID.test(id))
        throw new UsageError(`${command} needs a bypass request's number (ollie bypass lists them)`);
      if (command === "approve") {
        if (reason.length > 0) throw new UsageError("approve takes a request's number alone");
        return { command, id };
      }
      return { command, id, reason: reason.join(" ").trim() };
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}
