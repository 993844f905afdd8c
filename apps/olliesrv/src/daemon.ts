import { readFile, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeFileAtomic } from "@ollie/agent-core";
import {
  assertAddressFree,
  DEFAULT_LIMITS,
  formatAddress,
  hmacAuthenticator,
  NinepServer,
  parseAddress,
  type ServerLimits,
  serveUntilSignal,
} from "@ollie/ninep";
import { AuditTrail, auditSource } from "./auth/audit-trail.js";
import { loadOwnerKey } from "./auth/owner-key.js";
import { Principals } from "./auth/principals.js";
import { loadBackends } from "./config/backends.js";
import { loadSkills } from "./config/skills.js";
import { ollieTree } from "./namespace/tree.js";
import { ensureDirs, olliePaths } from "./paths.js";
import type { AgentEnvironment } from "./session/agent-slot.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./session/limits.js";
import { Sessions } from "./session/sessions.js";
import { startToolsrv, type ToolsrvProcess } from "./toolsrv-process.js";

const USAGE = `usage: olliesrv [-a ADDR] [--tcp [HOST:]PORT] [--key-file FILE] [--max-* N] [--toolsrv ADDR] [-D]
  -a ADDR           where to serve the namespace (default: $NAMESPACE/ollie)
  --tcp [HOST:]PORT also serve on TCP (HOST defaults to 127.0.0.1; port 0 picks a free one)
  --key-file FILE   the owner's key (default: $XDG_DATA_HOME/ollie/keys/owner.key, made at first start)
  --max-depth N     how deep agents may spawn sessions from sessions (default 3)
  --max-children N  sessions one agent may have spawned at once (default 16)
  --max-sessions N  sessions the daemon holds at once (default 512)
  --max-hops N      agent-to-agent prompts in a row before a person must prompt again (default 10)
  --max-prompt BYTES the longest prompt (default 1048576)
  --max-connections N, --attach-deadline SECONDS
                    9P clients at once (default 1024); how long a client has to attach (default 30)
  --ninep-limit NAME=N
                    any other limit of the 9P server (@ollie/ninep ServerLimits), e.g.
                    maxQueuedReplyBytes=33554432 (repeatable)
  --toolsrv ADDR    use a toolsrv already running at ADDR instead of starting one at $NAMESPACE/toolsrv
                    (it is authenticated with $OLLIE_TOOLSRV_KEY when that is set)
  -D                trace 9P messages to stderr
Every attach, on every listener, must prove its uname (see NAMESPACE.md, "Principals").
`;

/**
 * `olliesrv`: the session daemon. Boot, in order: paths, configuration, toolsrv, the namespace, the listener,
 * then the saved sessions (so restored agents come up on a live tree). SIGINT or SIGTERM stops every turn,
 * saves every session, closes the listener (removing the socket) and stops toolsrv.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: ReturnType<typeof parse>;
  let tcp: string | undefined;
  try {
    values = parse(argv);
    tcp = values.tcp === undefined ? undefined : tcpAddress(values.tcp);
  } catch (error) {
    process.stderr.write(`olliesrv: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = (line: string) => process.stderr.write(`olliesrv: ${line.replace(/\n$/, "")}\n`);
  const paths = olliePaths(env);
  await ensureDirs(paths);
  const address = values.a ?? `unix!${join(paths.namespace, "ollie")}`;
  let limits: SessionLimits;
  let serverLimits: Partial<ServerLimits>;
  try {
    const whole = (flag: keyof typeof values, fallback: number) => {
      const given = values[flag];
      if (given === undefined) return fallback;
      const n = Number(given);
      if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} takes a whole number, not '${given}'`);
      return n;
    };
    const d = DEFAULT_SESSION_LIMITS;
    limits = {
      maxDepth: whole("max-depth", d.maxDepth),
      maxChildren: whole("max-children", d.maxChildren),
      maxSessions: whole("max-sessions", d.maxSessions),
      maxHops: whole("max-hops", d.maxHops),
      maxPromptBytes: whole("max-prompt", d.maxPromptBytes),
    };
    serverLimits = {};
    for (const setting of values["ninep-limit"] ?? []) {
      const [name = "", value = ""] = setting.split("=");
      if (!(name in DEFAULT_LIMITS))
        throw new Error(`--ninep-limit: no limit '${name}' (${Object.keys(DEFAULT_LIMITS).join(", ")})`);
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0)
        throw new Error(`--ninep-limit ${name} takes a whole number, not '${value}'`);
      serverLimits[name as keyof ServerLimits] = n;
    }
    serverLimits.maxConnections = whole(
      "max-connections",
      serverLimits.maxConnections ?? DEFAULT_LIMITS.maxConnections,
    );
    serverLimits.attachDeadlineMs =
      whole("attach-deadline", (serverLimits.attachDeadlineMs ?? DEFAULT_LIMITS.attachDeadlineMs) / 1000) *
      1000;
  } catch (error) {
    process.stderr.write(`olliesrv: ${(error as Error).message}\n`);
    return 2;
  }
  // A second daemon fails here, before it starts a toolsrv or touches any session, saying who serves.
  const parsedAddress = parseAddress(address);
  const pidFile = parsedAddress.kind === "unix" ? `${parsedAddress.path}.pid` : undefined;
  try {
    await assertAddressFree(parsedAddress);
  } catch (error) {
    const pid = pidFile && (await readFile(pidFile, "utf8").catch(() => "")).trim();
    log(`${(error as Error).message}${pid ? ` (olliesrv pid ${pid})` : ""}`);
    return 1;
  }
  const keyFile = values["key-file"] ?? paths.ownerKey;
  let ownerKey: string;
  try {
    ownerKey = await loadOwnerKey(keyFile);
  } catch (error) {
    log((error as Error).message);
    return 1;
  }
  let sessions: Sessions | undefined;
  const trail = new AuditTrail(log);
  const principals = new Principals(
    userInfo().username,
    ownerKey,
    (uname) => sessions?.agent(uname) !== undefined,
    (line, source) => trail.record(line, auditSource(source)),
  );
  let backends: Awaited<ReturnType<typeof loadBackends>>;
  try {
    backends = await loadBackends(paths);
  } catch (error) {
    log(`${(error as Error).message}; fix it and start again`);
    return 1;
  }
  const skills = await loadSkills([join(paths.config, "skills"), join(paths.defaults, "skills")], log);

  let toolsrv: ToolsrvProcess | undefined;
  const toolsrvAddress = values.toolsrv ?? `unix!${join(paths.namespace, "toolsrv")}`;
  const toolsrvKey = values.toolsrv ? env.OLLIE_TOOLSRV_KEY : principals.toolsrvKey;
  if (!values.toolsrv)
    toolsrv = await startToolsrv(
      toolsrvAddress,
      { OLLIE_ADDRESS: address, OLLIE_TOOLSRV_KEY: principals.toolsrvKey },
      // toolsrv protects the owner key file from every sandbox as well.
      ["--owner-key", keyFile],
      (l) => process.stderr.write(`${l}\n`),
    );

  const environment: AgentEnvironment = {
    backends,
    agentDirs: [join(paths.config, "agents"), join(paths.defaults, "agents")],
    skills: () => skills,
    toolsrvAddress,
    prompt: { ollieDir: paths.config, env: { ...env, OLLIE_DEFAULTS: paths.defaults } },
    snapshotDir: paths.sessions,
    backendsConf: join(paths.config, "backends.conf"),
    owner: principals.owner,
    tmpRoot: join(tmpdir(), `ollie-${userInfo().uid}`),
    agentKey: (uname) => principals.agentKey(uname),
    ...(toolsrvKey && { toolsrvAuthenticator: hmacAuthenticator(toolsrvKey) }),
    audit: (line, source = "olliesrv") => trail.record(line, auditSource(source)),
    limits,
    hopsOf: (uname) => sessions?.agent(uname)?.turnHops ?? 0,
    deliver: (to, text, from) => sessions!.deliver(to, text, from),
  };
  sessions = new Sessions(paths.sessions, paths.corrupt, environment, log);
  const tree = ollieTree(sessions, {
    owner: principals.owner,
    onDenied: (d) => trail.record(`denied ${d.uname} ${d.access} ${d.path}`, auditSource(d.uname)),
    serverStats: () => server.stats(),
  });
  sessions.onKill(() => {
    tree.prune("/session");
    tree.prune("/peer");
  });
  const server: NinepServer = new NinepServer(tree, {
    auth: principals.serverAuth(),
    limits: serverLimits,
    ...(values.D && { trace: (line: string) => process.stderr.write(`${line}\n`) }),
    onError: (error) => log(error.message),
  });
  let restoring: Promise<void> = Promise.resolve();
  let unsaved = 0;
  try {
    if (tcp !== undefined) {
      const listener = await server.listen(tcp);
      log(`serving on ${formatAddress(listener.boundAddress)} (authenticated, like every listener)`);
    }
    await serveUntilSignal(server, parseAddress(address), (listener) => {
      const bound = formatAddress(listener.boundAddress);
      log(
        `serving on ${bound} (toolsrv at ${toolsrvAddress}); default backend: ${backends.conf.defaultProfile ?? "none"}`,
      );
      log(`try: ollie -a '${bound}' ask "hello"   (backends are configured in ${environment.backendsConf})`);
      log(`you attach as ${principals.owner}, proven with ${keyFile} (ninep: -k ${keyFile})`);
      if (pidFile) void writeFileAtomic(pidFile, `${process.pid}\n`).catch(() => {});
      const started = performance.now();
      restoring = sessions.restore().then(
        (n) => {
          const ms = (performance.now() - started).toFixed(0);
          log(`restored ${n} session${n === 1 ? "" : "s"} from ${paths.sessions} in ${ms} ms`);
        },
        (e: unknown) => {
          log(`restoring sessions failed: ${(e as Error).message}`);
        },
      );
    });
  } finally {
    if (pidFile) await rm(pidFile, { force: true });
    await restoring;
    unsaved = await sessions.close();
    await server.close();
    await toolsrv?.stop();
  }
  // What could not be saved was logged, session by session; the exit status says that something was lost.
  return unsaved > 0 ? 1 : 0;
}

/** `PORT`, `HOST:PORT`, `[V6]:PORT` or a 9P address; a bare port is loopback. */
function tcpAddress(spec: string): string {
  if (spec.includes("!")) return spec;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(spec);
  if (m) return `tcp!${m[1] ?? m[2] ?? "127.0.0.1"}!${m[3]}`;
  if (/^\d+$/.test(spec)) return `tcp!127.0.0.1!${spec}`;
  throw new Error(`--tcp takes PORT or HOST:PORT, not '${spec}'`);
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      a: { type: "string" },
      toolsrv: { type: "string" },
      tcp: { type: "string" },
      "key-file": { type: "string" },
      "max-depth": { type: "string" },
      "max-children": { type: "string" },
      "max-sessions": { type: "string" },
      "max-hops": { type: "string" },
      "max-prompt": { type: "string" },
      "ninep-limit": { type: "string", multiple: true },
      "max-connections": { type: "string" },
      "attach-deadline": { type: "string" },
      D: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}
