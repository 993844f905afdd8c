import {
  ConfigError,
  type ConfigProblem,
  checkConfig,
  type FilePosition,
  type Locate,
  parseConfigText,
} from "@ollie/config-file";
import { isTraceparent } from "@ollie/telemetry";
import { z } from "zod";
import { checkProfileName } from "../names.js";
import { parseRemoteTarget } from "../remote/remote-target.js";
import { sessionMcpServersSchema } from "../session/mcp-servers.js";
import type { SessionSpec } from "../session/session.js";

/** What a spec written to `session/new` is called in its errors: `session spec:1:9: colour: unknown key …`. */
const SOURCE = "session spec";

/** A spec written to `session/new` that cannot make a session: every problem, each with its place. */
export class SessionSpecError extends ConfigError {
  override readonly name = "SessionSpecError";
}

/** A word's value: some text, checked by `check` (which throws an Error saying what is wrong). */
const word = (check?: (value: string) => unknown) =>
  z
    .string({ error: (issue) => `needs a value, not ${JSON.stringify(issue.input)}` })
    .min(1, "needs a value")
    .superRefine((value, ctx) => {
      try {
        check?.(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    });

/** `yes` or `no` as a word, or a JSON boolean. */
const yesOrNo = z
  .union([z.boolean(), z.enum(["yes", "no"])], {
    error: (issue) => `yes or no, not '${String(issue.input)}'`,
  })
  .transform((value) => value === true || value === "yes");

/** The keys of a session spec (NAMESPACE.md, `session/new`); `profile` is another name for `agent`. */
const specSchema = z.strictObject({
  agent: word(checkProfileName).optional(),
  profile: word(checkProfileName).optional(),
  cwd: word().optional(),
  remote: word(parseRemoteTarget).optional(),
  backend: word().optional(),
  model: word().optional(),
  name: word().optional(),
  callback: yesOrNo.optional(),
  mcpServers: sessionMcpServersSchema.optional(),
  /** The span of the spawning call (`TRACEPARENT` in a spawn tool's environment), W3C trace context. */
  traceparent: word((value) => {
    if (!isTraceparent(value))
      throw new Error("a W3C traceparent, 00-TRACE_ID-SPAN_ID-FLAGS in lowercase hex");
  }).optional(),
  tracestate: word().max(512, "at most 512 characters").optional(),
});

/** Where each word of a `key=value` spec starts, by its key (the last of a key written twice wins). */
interface Words {
  data: Record<string, string>;
  at: Map<string, FilePosition>;
}

function readWords(text: string): Words {
  const data: Record<string, string> = {};
  const at = new Map<string, FilePosition>();
  const problems: ConfigProblem[] = [];
  let line = 1;
  let lineStart = 0;
  for (const match of text.matchAll(/\S+|\n/g)) {
    if (match[0] === "\n") {
      line++;
      lineStart = match.index + 1;
      continue;
    }
    const spelled = match[0];
    const position = { line, column: match.index - lineStart + 1 };
    const eq = spelled.indexOf("=");
    if (eq <= 0) {
      problems.push({ problem: `a session spec is key=value words, not '${spelled}'`, position });
      continue;
    }
    const key = spelled.slice(0, eq);
    data[key] = spelled.slice(eq + 1);
    at.set(key, position);
  }
  if (problems.length > 0) throw new SessionSpecError(SOURCE, problems);
  return { data, at };
}

/**
 * Reads a session spec: `key=value` words (agent, cwd, remote, backend, model, name, callback, traceparent,
 * tracestate) or a JSON object of the same keys and `mcpServers` (the session's own MCP servers, see
 * SessionMcpServers);
 * `callback` is `yes` or `no` (or a JSON boolean). A key given twice keeps its last
 * value, and so does `agent` given also as `profile`. Throws a SessionSpecError naming each bad word or key
 * and where it is (line and column in the spec).
 */
export function parseSpec(spec: string): SessionSpec {
  let data: unknown;
  let locate: Locate;
  if (spec.trimStart().startsWith("{")) {
    ({ data, locate } = parseConfigText(spec, SOURCE, "json", SessionSpecError));
  } else {
    const words = readWords(spec);
    data = words.data;
    locate = (path, key) => words.at.get(String(key ?? path[0]));
  }
  const { profile, agent, traceparent, tracestate, ...rest } = checkConfig(specSchema, data, {
    file: SOURCE,
    locate,
    errorType: SessionSpecError,
  });
  // `profile` and `agent` name the same thing: whichever the spec wrote last is the one it meant.
  const names = Object.keys(data as object).filter((key) => key === "agent" || key === "profile");
  const chosen = names.at(-1) === "profile" ? profile : agent;
  return {
    ...rest,
    ...(chosen !== undefined && { agent: chosen }),
    ...(traceparent !== undefined && { trace: tracestate ? { traceparent, tracestate } : { traceparent } }),
  };
}
