import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import {
  type ConfigDocument,
  ConfigError,
  checkConfig,
  formatProblems,
  type Locate,
  readConfigDocument,
} from "@ollie/config-file";
import { type PolicyLayer, validateLayer } from "@ollie/sandbox";
import { z } from "zod";
import type { BrokenTool } from "../metadata/tool-meta.js";
import { expandVariables } from "./expand-variables.js";

interface ServerCommon {
  /** The key under `mcpServers`. */
  name: string;
  /** Where it was defined, for messages: `FILE: mcpServers.NAME`. */
  source: string;
  /** How long one call may run. */
  callTimeoutMs: number;
  /** How long starting (or connecting) and listing its tools may take. */
  startupTimeoutMs: number;
}

/** A server toolsrv starts itself and talks to over its standard input and output. */
export interface StdioServerConfig extends ServerCommon {
  kind: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Its working directory; absent: a private one of its own. */
  cwd?: string;
  /** Added to toolsrv's policy for this server. */
  sandbox?: PolicyLayer;
  /**
   * One server for every agent (the default), or, when false, one per agent: started at the agent's first
   * call in its working directory with its environment, as its tools are.
   */
  shared: boolean;
}

/** A server already running somewhere, reached over Streamable HTTP. */
export interface HttpServerConfig extends ServerCommon {
  kind: "http";
  url: URL;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** What mcp.json says: the servers to use, and the entries that cannot be used, with why. */
export interface McpConfig {
  servers: McpServerConfig[];
  broken: BrokenTool[];
}

const DEFAULT_STARTUP_SECONDS = 60;
const DEFAULT_CALL_SECONDS = 120;

const seconds = z
  .number()
  .positive()
  .max(24 * 3600);

// The file is shared with other MCP clients (Claude Desktop, Claude Code, Cursor), which add keys of their
// own (`alwaysAllow`, `autoApprove`, `envFile`…): unknown keys are left alone rather than refused.
const common = {
  disabled: z.boolean().optional(),
  timeout: seconds.optional(),
  startupTimeout: seconds.optional(),
};
const stdioSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string({ error: "missing: the command that starts the server (or a url)" }).min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  sandbox: z.unknown().optional(),
  shared: z.boolean().default(true),
  ...common,
});
const httpSchema = z.looseObject({
  type: z.enum(["http", "streamable-http", "streamableHttp"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }),
  headers: z.record(z.string(), z.string()).default({}),
  ...common,
});
const fileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).default({}) });

/** The servers' names become part of tool names: letters, digits, `_` and `-`, as tool names allow. */
const NAME = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Reads mcp.json (`{"mcpServers": {NAME: {command, args, env} | {url, headers}}}`, the format Claude
 * Desktop, Claude Code and Cursor share). `${VAR}` and `${VAR:-default}` in commands, arguments,
 * environments, URLs and headers are taken from `env`. A missing file configures nothing; an entry that is
 * wrong is reported as broken and the others are used.
 */
export async function readMcpConfig(file: string, env: NodeJS.ProcessEnv): Promise<McpConfig> {
  let doc: ConfigDocument | undefined;
  try {
    doc = await readConfigDocument(file, { format: "json" });
    if (!doc) return { servers: [], broken: [] };
    const top = checkConfig(fileSchema, doc.data, { file, locate: doc.locate });
    const servers: McpServerConfig[] = [];
    const broken: BrokenTool[] = [];
    for (const [name, raw] of Object.entries(top.mcpServers)) {
      const source = `${file}: mcpServers.${name}`;
      try {
        const server = checkServer(
          name,
          raw,
          (text) => expandVariables(text, env),
          nested(doc, name),
          source,
        );
        if (server) servers.push(server);
      } catch (error) {
        broken.push(
          error instanceof ConfigError ? brokenOf(error) : { file: source, reason: (error as Error).message },
        );
      }
    }
    return { servers, broken };
  } catch (error) {
    if (error instanceof ConfigError) return { servers: [], broken: [brokenOf(error)] };
    throw error;
  }
}

/** What an agent's own server may not say: it runs in the agent's directory, under the agent's policy. */
const AGENT_FORBIDS = ["cwd", "sandbox", "shared"] as const;

/**
 * An agent's own servers, given as an object shaped like mcp.json's `mcpServers` (`{NAME: {command, args?,
 * env?} | {url, headers?}}`): what an editor handed the agent, passed on by the daemon. Unlike mcp.json's
 * entries, nothing is expanded (`${VAR}` stays as written: the values come from the editor, not from the
 * user's file), and `cwd`, `sandbox` and `shared` are refused: the server runs in the agent's directory
 * under the agent's sandbox, which no entry may widen. `source` names where they came from in messages; an
 * entry that is wrong is reported as broken and the others are used. Throws when `servers` is no object.
 */
export function parseAgentMcpServers(servers: unknown, source: string): McpConfig {
  if (typeof servers !== "object" || servers === null || Array.isArray(servers))
    throw new Error("mcpServers must be an object of servers by name, as in mcp.json");
  const result: McpConfig = { servers: [], broken: [] };
  for (const [name, raw] of Object.entries(servers)) {
    const at = `${source}: mcpServers.${name}`;
    try {
      const refused = AGENT_FORBIDS.find((key) => typeof raw === "object" && raw !== null && key in raw);
      if (refused)
        throw new Error(
          `${refused} cannot be set for an agent's own server: it runs in the agent's directory, under the agent's sandbox`,
        );
      const server = checkServer(name, raw, (text) => text, plain(at, name), at);
      if (server) result.servers.push(server);
    } catch (error) {
      result.broken.push({ file: at, reason: problemOf(error) });
    }
  }
  return result;
}

/** Checks one server's entry given as an object, its problems named from `mcpServers.NAME.KEY`. */
function plain(at: string, name: string): EntryCheck {
  return <S extends z.ZodType>(schema: S, raw: unknown) => {
    const whole = z.object({ mcpServers: z.object({ [name]: schema }) });
    return checkConfig(whole, { mcpServers: { [name]: raw } }, { file: at }).mcpServers[name] as z.output<S>;
  };
}

const problemOf = (error: unknown): string =>
  error instanceof ConfigError ? formatProblems(undefined, error.problems) : (error as Error).message;

/** The file's identity for noticing edits: undefined when it does not exist. */
export async function configStamp(file: string): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  return info && `${info.mtimeMs}:${info.size}:${info.ino}`;
}

/** Checks one server's entry with problems placed and named from the top of the file (`mcpServers.NAME.KEY`). */
function nested(doc: ConfigDocument, name: string): EntryCheck {
  // A key that is missing is placed at the entry that lacks it.
  const nearest: Locate = (path, key) =>
    doc.locate(path, key) ?? (path.length > 0 ? nearest(path.slice(0, -1)) : undefined);
  return <S extends z.ZodType>(schema: S, raw: unknown) => {
    const whole = z.object({ mcpServers: z.object({ [name]: schema }) });
    const checked = checkConfig(whole, { mcpServers: { [name]: raw } }, { file: doc.file, locate: nearest });
    return checked.mcpServers[name] as z.output<S>;
  };
}

type EntryCheck = <S extends z.ZodType>(schema: S, raw: unknown) => z.output<S>;

/** A problem of the file as a `broken` line: `FILE:LINE:COLUMN: KEY: PROBLEM`. */
function brokenOf(error: ConfigError): BrokenTool {
  const at = error.position;
  const file = `${error.file ?? "mcp.json"}${at ? `:${at.line}:${at.column}` : ""}`;
  return { file, reason: formatProblems(undefined, error.problems) };
}

function checkServer(
  name: string,
  raw: unknown,
  /** What `${VAR}` in its values becomes. */
  expand: (text: string) => string,
  check: EntryCheck,
  source: string,
): McpServerConfig | undefined {
  if (!NAME.test(name))
    throw new Error(`a server's name is 1 to 32 letters, digits, _ or -, as it becomes part of tool names`);
  if (typeof raw === "object" && raw !== null && (raw as { type?: unknown }).type === "sse")
    throw new Error("the HTTP+SSE transport is deprecated in MCP and not supported: use Streamable HTTP");
  const isHttp = typeof raw === "object" && raw !== null && "url" in raw && !("command" in raw);
  const common = (r: z.output<typeof stdioSchema> | z.output<typeof httpSchema>): ServerCommon => ({
    name,
    source,
    callTimeoutMs: (r.timeout ?? DEFAULT_CALL_SECONDS) * 1000,
    startupTimeoutMs: (r.startupTimeout ?? DEFAULT_STARTUP_SECONDS) * 1000,
  });
  const expandAll = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]));
  if (isHttp) {
    const r = check(httpSchema, raw);
    if (r.disabled) return undefined;
    return { ...common(r), kind: "http", url: new URL(expand(r.url)), headers: expandAll(r.headers) };
  }
  const r = check(stdioSchema, raw);
  if (r.disabled) return undefined;
  const server: StdioServerConfig = {
    ...common(r),
    kind: "stdio",
    command: expand(r.command),
    args: r.args.map(expand),
    env: expandAll(r.env),
    shared: r.shared,
  };
  if (r.cwd !== undefined) {
    server.cwd = expand(r.cwd);
    if (!isAbsolute(server.cwd)) throw new Error(`cwd must be an absolute path, not '${server.cwd}'`);
  }
  if (r.sandbox !== undefined) server.sandbox = validateLayer(r.sandbox, `${source}.sandbox`);
  return server;
}
