import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ollieDirs } from "@ollie/config-file/dirs";
import { type Logger, openDaemonLog } from "@ollie/log";
import {
  defaultUname,
  formatAddress,
  NinepServer,
  parseAddress,
  serveUntilSignal,
  serviceAddress,
} from "@ollie/ninep";
import {
  describeEnforcement,
  limitEnforcement,
  PeerCredentialsReader,
  resolvePolicy,
  resourceGroups,
  sandboxCommand,
  unixPeers,
} from "@ollie/sandbox";
import { startTelemetry, type Telemetry } from "@ollie/telemetry/sdk";
import { createToolServer, loadBypassPolicy } from "@ollie/toolsrv";
import { keyedAuth } from "./auth.js";
import { type CommandLine, parseCommandLine, type ToolsrvOptions, USAGE } from "./command-line.js";
import { connectionLog } from "./connection-log.js";
import { firstLine, loadKeys } from "./keys.js";

/** The bundled default tools, built next to this file's dist/. */
export const BUNDLED_TOOLS = fileURLToPath(new URL("../tools", import.meta.url));

/** `toolsrv`: serves the tool namespace until SIGINT or SIGTERM, then kills its tools and removes its socket. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Taken before anything else, so no tool and no process toolsrv starts can inherit it.
  let serviceKey = env.OLLIE_TOOLSRV_KEY;
  delete env.OLLIE_TOOLSRV_KEY;
  delete process.env.OLLIE_TOOLSRV_KEY;
  let command: CommandLine;
  try {
    command = parseCommandLine(argv, env, serviceKey !== undefined);
  } catch (error) {
    process.stderr.write(`toolsrv: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === "version") {
    process.stdout.write(`${__PACKAGE_VERSION__}\n`);
    return 0;
  }
  if (command.options.keyStdin) {
    try {
      serviceKey = await firstLine(process.stdin);
    } catch (error) {
      process.stderr.write(`toolsrv: --key-stdin: ${(error as Error).message}\n`);
      return 1;
    }
  }
  // A log file named by --log-level or $OLLIE_LOG is opened here (and again on SIGHUP, for logrotate).
  const log = openDaemonLog({ program: "toolsrv", settings: command.options.log });
  if (serviceKey !== undefined) log.addSecret(serviceKey);
  const telemetry = await startTelemetryIfAsked(command.options, log);
  try {
    return await serve(command.options, serviceKey, env, log);
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  } finally {
    // Standard input held open (to notice its end, or after the key was read) must not keep a toolsrv
    // that failed to start alive.
    if (command.options.exitWithStdin) process.stdin.destroy();
    // Last, once the tools have ended: what is still waiting is exported, for a second at most.
    if (telemetry) await stopTelemetry(telemetry);
  }
}

/** How long toolsrv may stay after serving ends, while an export it gave up on is still under way. */
const EXIT_GRACE_MS = 250;

/**
 * Stops exporting, waiting a second at most. An export still under way then (a collector that takes a
 * connection and never answers) would hold the process until the exporter's own timeout, tens of seconds
 * later: once the caller has set the exit status, toolsrv exits without it.
 */
async function stopTelemetry(telemetry: Telemetry): Promise<void> {
  await telemetry.shutdown();
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}

/**
 * Starts exporting traces and metrics when the OTEL_* variables ask for it. Nothing of OpenTelemetry's SDK
 * is loaded otherwise. An SDK that cannot start is said, and toolsrv serves without it.
 */
async function startTelemetryIfAsked(options: ToolsrvOptions, log: Logger): Promise<Telemetry | undefined> {
  if (!options.telemetry) return undefined;
  const otel = log.child("otel");
  try {
    return await startTelemetry({
      service: "toolsrv",
      version: __PACKAGE_VERSION__,
      settings: options.telemetry,
      // The log's own secrets, those learnt later included: one list guards both.
      redact: log.redact,
      warn: otel.warn,
    });
  } catch (error) {
    otel.error(`telemetry could not start, serving without it: ${(error as Error).message}`);
    return undefined;
  }
}

async function serve(
  options: ToolsrvOptions,
  serviceKey: string | undefined,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<number> {
  const owner = options.owner ?? defaultUname();
  const keys = serviceKey === undefined ? undefined : await loadKeys(serviceKey, owner, options.ownerKey);
  if (keys?.owner) log.addSecret(Buffer.from(keys.owner.key).toString("utf8"));
  const { config, state } = ollieDirs(env);
  const toolsPath = (options.toolsPath ?? env.OLLIE_TOOLS_PATH ?? `${join(config, "tools")}:${BUNDLED_TOOLS}`)
    .split(":")
    .filter(Boolean);
  const memory = env.OLLIE_MEMORY_PATH || join(config, "memory");
  await mkdir(memory, { recursive: true, mode: 0o700 });
  const policy = await resolvePolicy({
    env,
    ...(options.sandbox !== undefined && { name: options.sandbox }),
    layers: [{ layer: { filesystem: { rw: [memory] } }, source: "toolsrv (the memory directory)" }],
  });
  // The checks a call's sandbox makes, short of running anything: Landlock, the launcher, the policy. In the
  // memory directory, which the policy grants, rather than toolsrv's own directory (a home holding the
  // launcher's, say, which no call may be granted).
  if (options.requireSandbox) await sandboxCommand("true", [], { policy, cwd: memory });
  const limits = limitEnforcement(policy, await resourceGroups());
  for (const l of limits) {
    const said = `limit on ${describeEnforcement(l, "agent")}`;
    // How each limit holds is for whoever looks closer; one that does not hold is for everyone.
    if (l.value !== null && l.by === null) log.warn(said);
    else log.debug(said);
  }
  const bypass = await loadBypassPolicy(options.bypass ?? join(config, "bypass.yaml"));
  // The owner's key file is a credential like any other: no tool may read it.
  const protect = [...options.protect, ...(options.ownerKey !== undefined ? [options.ownerKey] : [])].map(
    (p) => resolve(p),
  );
  const protectWrites = options.protectWrites.map((p) => resolve(p));
  const toolsLog = log.child("tools");
  const baseEnv = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    OLLIE_MEMORY_PATH: memory,
    ...(env.NAMESPACE && { NAMESPACE: env.NAMESPACE }),
    ...(env.OLLIE_ADDRESS && { OLLIE_ADDRESS: env.OLLIE_ADDRESS }),
  };
  const tools = createToolServer({
    toolsPath,
    policy,
    ...(options.sandbox !== undefined && { policyName: options.sandbox }),
    owner,
    bypass,
    log: toolsLog.info,
    ...(protect.length > 0 && { protect }),
    ...(protectWrites.length > 0 && { protectWrites }),
    ...(options.defaultTools && { defaultTools: options.defaultTools }),
    baseEnv,
    mcp: {
      file: options.mcpConfig ?? join(config, "mcp.json"),
      workDir: join(state, "mcp"),
      env: { PATH: baseEnv.PATH, ...userEnv(env) },
      variables: env,
      clientInfo: { name: "ollie-toolsrv", version: __PACKAGE_VERSION__ },
    },
  });
  const ninepLog = log.child("9p");
  const server = new NinepServer(tools.tree, {
    ...(keys && { auth: keyedAuth(keys, log.child("audit").warn) }),
    ...(ninepLog.enabled("trace") && { trace: ninepLog.trace }),
    onError: connectionLog(ninepLog.warn),
  });
  if (options.exitWithStdin) {
    process.stdin.resume();
    process.stdin.once("end", () => process.kill(process.pid, "SIGTERM"));
  }
  const address = options.address ? parseAddress(options.address) : serviceAddress("toolsrv", env);
  try {
    // On a Unix socket the kernel names each peer: olliesrv, toolsrv's own user, is the owner and always gets
    // in; the agents' tools, which may reach the socket too, share one peer's limit.
    const peer =
      address.kind === "unix"
        ? { peer: unixPeers(new PeerCredentialsReader(), process.getuid?.() ?? 0) }
        : {};
    await serveUntilSignal(
      server,
      address,
      (listener) => {
        const bound = formatAddress(listener.boundAddress);
        const access = keys
          ? "every attach must prove its key"
          : "unauthenticated: OLLIE_TOOLSRV_KEY is not set, so anyone who can reach the socket can run tools";
        // A parent that asked for the address says where toolsrv serves itself (olliesrv does): at debug
        // then, unless anyone may attach.
        (options.printAddress && keys ? log.debug : log.info)(
          `serving ${toolsPath.length} tool directories on ${bound}; ${access}`,
        );
        if (options.printAddress) process.stdout.write(`${bound}\n`);
        // What cannot be offered is said once at start (and is always listed in the namespace's broken file).
        tools.service.sources.broken().then(
          (broken) => {
            for (const b of broken) toolsLog.warn(`${b.file}: ${b.reason}; not offered`);
          },
          (error: unknown) => toolsLog.error(`listing broken tools: ${(error as Error).message}`),
        );
      },
      peer,
    );
  } finally {
    // Stdin is held open to notice the parent's end; it must not keep the process alive once serving ends,
    // by a signal or because it could not start.
    if (options.exitWithStdin) process.stdin.destroy();
  }
  await tools.close();
  await server.close();
  return 0;
}

/** What an MCP server started by toolsrv gets of toolsrv's environment (MCP clients pass about the same). */
function userEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const names = ["HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"];
  return Object.fromEntries(names.flatMap((n) => (env[n] ? [[n, env[n]]] : [])));
}
