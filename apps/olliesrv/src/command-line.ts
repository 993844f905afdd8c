import { parseArgs } from "node:util";
import { daemonLogSettings, type LogSettings, levelsOnly } from "@ollie/log";
import { DEFAULT_LIMITS, type ServerLimits } from "@ollie/ninep";
import { parseDuration } from "./duration.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./session/limits.js";

export const USAGE = `usage: olliesrv [-a ADDR] [--tcp [HOST:]PORT] [--mount-socket PATH|none] [--key-file FILE]
                [--max-* N] [--idle-close SECONDS] [--idle-exit DURATION] [--toolsrv ADDR]
                [--log-level LEVEL] [-D] [--print-address] [--ready-fd N] [--version]
  -a ADDR           where to serve the namespace (default: $NAMESPACE/ollie)
  --tcp [HOST:]PORT also serve on TCP (HOST defaults to 127.0.0.1; port 0 picks a free one)
  --mount-socket PATH
                    serve the namespace without a key to the owner's own processes, as the kernel names
                    them, for mount -t 9p and diod's tools (default: ADDR.mount beside a Unix -a socket;
                    none: do not)
  --key-file FILE   the owner's key (default: $XDG_DATA_HOME/ollie/keys/owner.key, made at first start)
  --max-depth N     how deep agents may spawn sessions from sessions (default 3)
  --max-children N  sessions one agent may have spawned at once (default 16)
  --max-sessions N  sessions the daemon holds at once (default 512)
  --max-hops N      agent-to-agent prompts in a row before a person must prompt again (default 10)
  --max-prompt BYTES the longest prompt (default 1048576)
  --max-connections N, --attach-deadline SECONDS
                    9P clients at once (default 1024; yours, on the Unix sockets, may go
                    reservedConnections further: 64); how long a client has to attach (default 30)
  --max-peer-connections N
                    9P clients one peer may have at once: a user on the Unix sockets (your
                    sandboxed tools count as one), an address on TCP; never you (default 128)
  --max-tcp-connections N
                    9P clients on the --tcp listener at once (default 512)
  --ninep-limit NAME=N
                    any other limit of the 9P server (@ollie/ninep ServerLimits), e.g.
                    reservedConnections=128 or maxMessageBeforeVersion=4096 (repeatable)
  --idle-close SECONDS
                    how long an agent stays live once idle (nothing running: no turn, hook, prompt
                    command, compaction or waiting prompt); then it is parked, holding no toolsrv
                    connection, and made again at its next use (default 30; 0: for ever)
  --idle-exit DURATION
                    stop (as SIGTERM does) once no client has been connected and no agent live (every
                    one parked: see --idle-close) for DURATION: 90s, 15m, 1h (default 0: never; the
                    olliesrv that ollie starts gets $OLLIE_IDLE_EXIT, else 15m)
  --toolsrv ADDR    use a toolsrv already running at ADDR instead of starting one at $NAMESPACE/toolsrv
                    (it is authenticated with $OLLIE_TOOLSRV_KEY when that is set)
  --log-level LEVEL what to log: error, warn, info, debug, trace or silent, then CATEGORY=LEVEL
                    settings for audit, 9p, sessions, e.g. warn,audit=info, and last a FILE (anything with
                    a '/') to append to instead of stderr (default: $OLLIE_LOG, else info on stderr; the
                    levels are passed on to the toolsrv olliesrv starts, whose lines join olliesrv's)
  -D                trace 9P messages (short for the setting 9p=trace)
  --print-address   print the address on stdout once ready (sessions restored), then the TCP address once
                    that listens (for a parent that waits for that)
  --ready-fd N      write the address, one line, to the open descriptor N once ready, then close it
  --version         print the version
  -h, --help        print this
Every attach, on every listener but the mount socket, must prove its uname (see NAMESPACE.md, "Principals").
`;

/**
 * Seconds an idle agent stays live before it is parked: long enough that a person typing the next prompt
 * finds it ready, short enough that sessions left idle hold no toolsrv connection (nor the agent).
 */
export const DEFAULT_IDLE_CLOSE_S = 30;

/**
 * 9P clients the TCP listener serves at once: half the server's places, so that strangers on TCP, from
 * however many addresses, leave room for the sandboxed tools and other users of the Unix sockets (the
 * owner's own clients have a reserve of their own).
 */
export const DEFAULT_TCP_CONNECTIONS = 512;

/** What the command line asks olliesrv to serve with. */
export interface DaemonOptions {
  /** `-a`: where to serve (default: $NAMESPACE/ollie). */
  address: string | undefined;
  /** `--tcp`, as a 9P address. */
  tcp: string | undefined;
  /** `--mount-socket`: a path, false for `none`, undefined for the default. */
  mountSocket: string | false | undefined;
  keyFile: string | undefined;
  /** `--toolsrv`: a toolsrv that already runs. */
  toolsrv: string | undefined;
  limits: SessionLimits;
  /** `--idle-close`, in ms: how long an idle agent stays live before it is parked (0: for ever). */
  idleCloseMs: number;
  serverLimits: Partial<ServerLimits>;
  /** `--max-tcp-connections`: the TCP listener's own limit (the `-a` one too, when that is TCP). */
  maxTcpConnections: number;
  log: LogSettings;
  /** `--log-level`'s level settings as given (not its file), for the toolsrv olliesrv starts. */
  logLevel: string | undefined;
  /** `--print-address`: say on stdout when ready, and where. */
  printAddress: boolean;
  /** `--ready-fd`: a descriptor to write the address to once ready, then close. */
  readyFd: number | undefined;
  /** `--idle-exit`, in ms: stop once idle this long (0: never). */
  idleExitMs: number;
}

export type CommandLine = { kind: "help" } | { kind: "version" } | { kind: "serve"; options: DaemonOptions };

/**
 * Reads olliesrv's command line (and `$OLLIE_LOG`). Whatever it throws is a usage mistake, its message
 * naming the flag and the value at fault.
 */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine {
  const { values } = parseArgs({
    args: argv,
    options: {
      a: { type: "string" },
      toolsrv: { type: "string" },
      tcp: { type: "string" },
      "mount-socket": { type: "string" },
      "key-file": { type: "string" },
      "max-depth": { type: "string" },
      "max-children": { type: "string" },
      "max-sessions": { type: "string" },
      "max-hops": { type: "string" },
      "max-prompt": { type: "string" },
      "idle-close": { type: "string" },
      "ninep-limit": { type: "string", multiple: true },
      "max-connections": { type: "string" },
      "max-peer-connections": { type: "string" },
      "max-tcp-connections": { type: "string" },
      "attach-deadline": { type: "string" },
      "log-level": { type: "string" },
      D: { type: "boolean" },
      "print-address": { type: "boolean" },
      "ready-fd": { type: "string" },
      "idle-exit": { type: "string" },
      version: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const whole = (flag: keyof typeof values, fallback: number) => {
    const given = values[flag];
    if (given === undefined) return fallback;
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} takes a whole number, not '${given}'`);
    return n;
  };
  const d = DEFAULT_SESSION_LIMITS;
  const limits: SessionLimits = {
    maxDepth: whole("max-depth", d.maxDepth),
    maxChildren: whole("max-children", d.maxChildren),
    maxSessions: whole("max-sessions", d.maxSessions),
    maxHops: whole("max-hops", d.maxHops),
    maxPromptBytes: whole("max-prompt", d.maxPromptBytes),
  };
  const serverLimits = ninepLimits(values["ninep-limit"] ?? []);
  serverLimits.maxConnections = whole(
    "max-connections",
    serverLimits.maxConnections ?? DEFAULT_LIMITS.maxConnections,
  );
  serverLimits.maxConnectionsPerPeer = whole(
    "max-peer-connections",
    serverLimits.maxConnectionsPerPeer ?? DEFAULT_LIMITS.maxConnectionsPerPeer,
  );
  serverLimits.attachDeadlineMs =
    whole("attach-deadline", (serverLimits.attachDeadlineMs ?? DEFAULT_LIMITS.attachDeadlineMs) / 1000) *
    1000;
  const readyFd = values["ready-fd"] === undefined ? undefined : whole("ready-fd", 0);
  if (readyFd !== undefined && readyFd < 3)
    throw new Error(
      `--ready-fd takes a descriptor above 2 (not standard input, output or error), not ${readyFd}`,
    );
  const log = daemonLogSettings({ logLevel: values["log-level"], trace9p: values.D }, env);
  return {
    kind: "serve",
    options: {
      address: values.a,
      tcp: values.tcp === undefined ? undefined : tcpAddress(values.tcp),
      mountSocket: mountSocket(values["mount-socket"]),
      keyFile: values["key-file"],
      toolsrv: values.toolsrv,
      limits,
      idleCloseMs: whole("idle-close", DEFAULT_IDLE_CLOSE_S) * 1000,
      serverLimits,
      maxTcpConnections: whole("max-tcp-connections", DEFAULT_TCP_CONNECTIONS),
      log,
      logLevel: levelsOnly(values["log-level"]),
      printAddress: values["print-address"] ?? false,
      readyFd,
      idleExitMs: values["idle-exit"] === undefined ? 0 : parseDuration(values["idle-exit"], "--idle-exit"),
    },
  };
}

/** `--ninep-limit NAME=N` settings, each checked against the limits @ollie/ninep has. */
function ninepLimits(settings: readonly string[]): Partial<ServerLimits> {
  const limits: Partial<ServerLimits> = {};
  for (const setting of settings) {
    const [name = "", value = ""] = setting.split("=");
    if (!Object.hasOwn(DEFAULT_LIMITS, name))
      throw new Error(`--ninep-limit: no limit '${name}' (${Object.keys(DEFAULT_LIMITS).join(", ")})`);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`--ninep-limit ${name} takes a whole number, not '${value}'`);
    limits[name as keyof ServerLimits] = n;
  }
  return limits;
}

/** `--mount-socket`: `none`, or a path (a `unix!PATH` address is taken as its path). */
function mountSocket(spec: string | undefined): string | false | undefined {
  if (spec === undefined) return undefined;
  if (spec === "none") return false;
  const path = spec.startsWith("unix!") ? spec.slice("unix!".length) : spec;
  if (path === "" || spec.startsWith("tcp!"))
    throw new Error(`--mount-socket takes a Unix socket path or none, not '${spec}'`);
  return path;
}

/** `PORT`, `HOST:PORT`, `[V6]:PORT` or a 9P address; a bare port is loopback. */
function tcpAddress(spec: string): string {
  if (spec.includes("!")) return spec;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(spec);
  if (m) return `tcp!${m[1] ?? m[2] ?? "127.0.0.1"}!${m[3]}`;
  if (/^\d+$/.test(spec)) return `tcp!127.0.0.1!${spec}`;
  throw new Error(`--tcp takes PORT or HOST:PORT, not '${spec}'`);
}
