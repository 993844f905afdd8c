import { parseArgs } from "node:util";
import { daemonLogSettings, type LogSettings } from "@ollie/log";
import { resolveTelemetrySettings, type TelemetrySettings } from "@ollie/telemetry/sdk";

export const USAGE = `usage: toolsrv [-a ADDR] [--tools-path DIRS] [--mcp-config FILE] [--sandbox NAME] [--bypass FILE]
                [--owner UNAME] [--owner-key FILE] [--protect PATH]... [--protect-writes PATH]...
                [--default-tools NAMES] [--key-stdin] [--require-sandbox] [--log-level LEVEL] [-D] [--version]
  -a ADDR            where to listen (default: $NAMESPACE/toolsrv)
  --tools-path DIRS  ':'-separated tool directories, earlier first
                     (default: $OLLIE_TOOLS_PATH, else $XDG_CONFIG_HOME/ollie/tools then the bundled tools)
  --mcp-config FILE  the MCP servers whose tools to offer as mcp__SERVER__TOOL
                     (default: $XDG_CONFIG_HOME/ollie/mcp.json; none: no servers)
  --sandbox NAME     the sandbox overlay $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml
  --bypass FILE      the bypass policy (default: $XDG_CONFIG_HOME/ollie/bypass.yaml; none allows nothing)
  --owner UNAME      who may approve bypass requests (default: the user running toolsrv)
  --owner-key FILE   the key the owner proves instead of OLLIE_TOOLSRV_KEY (needs it; FILE is protected)
  --protect PATH     refuse any call whose sandbox would reach PATH (repeatable)
  --protect-writes PATH
                     refuse any call whose sandbox could write PATH; it may read and run it (repeatable)
  --default-tools N  the tools an agent starts with, comma-separated (default: client_9p)
  --exit-with-stdin  stop when standard input closes (a parent that starts toolsrv, and may die, passes this)
  --print-address    print the address on stdout once serving (for a parent that waits for that)
  --require-sandbox  refuse to start, saying why, when sandboxed commands cannot run here (no Landlock, no
                     launcher), rather than serve calls that will all fail (a parent that starts toolsrv on
                     another host passes this)
  --key-stdin        read the key every attach must prove from the first line of standard input instead
                     of OLLIE_TOOLSRV_KEY, and stop when standard input closes (a parent that starts
                     toolsrv over ssh, which passes no environment, passes this)
  --log-level LEVEL  what to log: error, warn, info, debug, trace or silent, then CATEGORY=LEVEL settings
                     for audit, 9p, tools, otel, e.g. warn,audit=info, and last a FILE (anything with a
                     '/') to append to instead of stderr (default: $OLLIE_LOG, else info on stderr)
  -D                 trace 9P messages (short for the setting 9p=trace)
  --version          print the version
  -h, --help         print this
With OLLIE_TOOLSRV_KEY set (or --key-stdin), every attach must prove that key (hmac-sha256 through Tauth); without it,
anyone who can reach the socket can run tools.
OpenTelemetry's OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER…) turn on exporting traces
and metrics over OTLP/HTTP; tools get their calls' trace context as TRACEPARENT.
`;

/** What the command line asks toolsrv to serve with. */
export interface ToolsrvOptions {
  /** `-a`: where to listen (default: $NAMESPACE/toolsrv). */
  address: string | undefined;
  toolsPath: string | undefined;
  mcpConfig: string | undefined;
  sandbox: string | undefined;
  bypass: string | undefined;
  owner: string | undefined;
  ownerKey: string | undefined;
  protect: string[];
  /** `--protect-writes`: paths tools may read and run but never write. */
  protectWrites: string[];
  defaultTools: string[] | undefined;
  exitWithStdin: boolean;
  /** `--key-stdin`: the service key is standard input's first line. */
  keyStdin: boolean;
  /** `--require-sandbox`: no start where sandboxed commands cannot run. */
  requireSandbox: boolean;
  printAddress: boolean;
  log: LogSettings;
  /** What the OTEL_* variables ask to export; undefined when nothing is. */
  telemetry: TelemetrySettings | undefined;
}

export type CommandLine = { kind: "help" } | { kind: "version" } | { kind: "serve"; options: ToolsrvOptions };

/**
 * Reads toolsrv's command line (and `$OLLIE_LOG` and the `OTEL_*` variables). Whatever it throws is a usage
 * mistake, its message naming the flag or variable and the value at fault. `keyed`: whether OLLIE_TOOLSRV_KEY was set; `--owner-key` needs it or
 * `--key-stdin`, and `--key-stdin` refuses it (one key, from one place).
 */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv, keyed: boolean): CommandLine {
  const { values } = parseArgs({
    args: argv,
    options: {
      a: { type: "string" },
      "tools-path": { type: "string" },
      "mcp-config": { type: "string" },
      sandbox: { type: "string" },
      bypass: { type: "string" },
      owner: { type: "string" },
      "owner-key": { type: "string" },
      protect: { type: "string", multiple: true },
      "protect-writes": { type: "string", multiple: true },
      "default-tools": { type: "string" },
      "exit-with-stdin": { type: "boolean" },
      "print-address": { type: "boolean" },
      "key-stdin": { type: "boolean" },
      "require-sandbox": { type: "boolean" },
      "log-level": { type: "string" },
      D: { type: "boolean" },
      version: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const keyStdin = values["key-stdin"] ?? false;
  if (keyStdin && keyed) throw new Error("--key-stdin and OLLIE_TOOLSRV_KEY both give the key: use one");
  if (values["owner-key"] !== undefined && !keyed && !keyStdin)
    throw new Error(
      "--owner-key needs OLLIE_TOOLSRV_KEY or --key-stdin: without a key no attach is authenticated",
    );
  const log = daemonLogSettings({ logLevel: values["log-level"], trace9p: values.D }, env);
  const telemetry = resolveTelemetrySettings(env);
  return {
    kind: "serve",
    options: {
      address: values.a,
      toolsPath: values["tools-path"],
      mcpConfig: values["mcp-config"],
      sandbox: values.sandbox,
      bypass: values.bypass,
      owner: values.owner,
      ownerKey: values["owner-key"],
      protect: values.protect ?? [],
      protectWrites: values["protect-writes"] ?? [],
      defaultTools: values["default-tools"] ? values["default-tools"].split(",").filter(Boolean) : undefined,
      exitWithStdin: (values["exit-with-stdin"] ?? false) || keyStdin,
      keyStdin,
      requireSandbox: values["require-sandbox"] ?? false,
      printAddress: values["print-address"] ?? false,
      log,
      telemetry,
    },
  };
}
